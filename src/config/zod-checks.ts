import { z } from 'zod';
import { type Check, describe } from './checks';

/**
 * The config's blocks described in zod, with the problems worded as src/config/checks.ts words them ("path:
 * expected a string, got 5"), so that a block in zod and one in checks report alike, every problem at once and
 * each under its key's path (docs/architecture.md, Configuration).
 */

/** A missing key that has no default, else the type's own wording. */
const typed =
  (expected: string) =>
  (i: { input?: unknown }): string =>
    i.input === undefined ? 'required' : `expected ${expected}, got ${describe(i.input)}`;

export function zStr(pattern?: RegExp, hint?: string) {
  const s = z.string({ error: typed('a string') });
  return pattern ? s.regex(pattern, { error: (i) => `${hint ?? 'invalid value'}, got ${JSON.stringify(i.input)}` }) : s;
}

export function zInt(min: number, max = Number.MAX_SAFE_INTEGER) {
  const range = (i: { input?: unknown }) => `must be between ${min} and ${max}, got ${String(i.input)}`;
  return z
    .int({ error: typed('an integer') })
    .min(min, { error: range })
    .max(max, { error: range });
}

export const zBool = () => z.boolean({ error: typed('true or false') });

export function zOneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, {
    error: (i) =>
      i.input === undefined
        ? 'required'
        : `must be one of ${values.map((x) => JSON.stringify(x)).join(', ')}, got ${describe(i.input)}`,
  });
}

export function zArrayOf<T extends z.ZodType>(item: T) {
  return z.array(item, { error: typed('an array') });
}

/** The problems of `value` against `schema`, each "path.key: what is wrong"; the parsed value when there are none. */
export function zodProblems<S extends z.ZodType>(
  schema: S,
  value: unknown,
  path: string,
): { problems: string[]; data?: z.output<S> } {
  const r = schema.safeParse(value);
  if (r.success) return { problems: [], data: r.data };
  const problems: string[] = [];
  for (const issue of r.error.issues) {
    const at = issue.path.reduce<string>(
      (p, k) => (typeof k === 'number' ? `${p}[${k}]` : p ? `${p}.${String(k)}` : String(k)),
      path,
    );
    if (issue.code === 'unrecognized_keys')
      for (const key of issue.keys) problems.push(`${at ? `${at}.` : ''}${key}: unknown key`);
    else if (issue.code === 'invalid_type' && issue.path.length === 0 && issue.expected === 'object')
      problems.push(`${at || 'config'}: expected an object, got ${describe(value)}`);
    else problems.push(`${at || 'config'}: ${issue.message}`);
  }
  return { problems };
}

/** A zod schema as one of src/config/checks.ts's checks, for a block inside a schema written with them. */
export function zodCheck(schema: z.ZodType): Check {
  return (v, path, problems) => {
    problems.push(...zodProblems(schema, v, path).problems);
  };
}
