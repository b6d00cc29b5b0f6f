import net from 'node:net';
import { z } from 'zod';

/**
 * The building blocks of the config's schema, in zod (docs/architecture.md, Configuration): each problem is worded
 * for an admin ("expected a string, got 5", "an http(s) URL, got \"ftp://x\"") and reported under its key's path
 * ("listen.port: …", "auth.sp[1].client_id: required"), every problem at once (zodProblems).
 */

/** A value as a problem quotes it: short, and never a whole object. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

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

/** A block: the keys of `shape` (optional ones marked so), any other key refused. */
export function zObject<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape, { error: typed('an object') });
}

/**
 * mail.transport: an smtp:// or smtps:// URL that the WHATWG URL parser reads. nodemailer hands a URL that parser
 * refuses to Node's legacy url.parse(), which guesses at it (and prints Node's DEP0169 warning): a broken URL
 * is refused here instead. The value is not repeated in the problem: it may hold the SMTP password.
 */
export const zSmtpUrl = () =>
  z.string({ error: typed('a string') }).refine((v) => /^smtps?:\/\//.test(v) && URL.canParse(v), {
    error: 'an smtp:// or smtps:// URL such as "smtp://user:password@host:587" (percent-encode special characters)',
  });

/** An IP address, or a CIDR range whose prefix fits its family (metrics.allow, trusted_proxies). */
export const zIpOrCidr = () =>
  z.custom<string>(
    (v) => {
      const [addr, bits, extra] = typeof v === 'string' ? v.split('/') : [];
      const family = typeof addr === 'string' ? net.isIP(addr) : 0;
      return (
        family !== 0 &&
        extra === undefined &&
        (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)))
      );
    },
    { error: (i) => `an IP address or CIDR range such as "10.0.0.0/8", got ${describe(i.input)}` },
  );

/**
 * A block of one of several kinds, by its `type` (a store, an identity provider): `schemaOf` gives the kind's
 * schema, `types` the known ones for the problem when none matches. Kinds may be added at run time, so the
 * kind is looked up when the value is checked.
 */
export function zKinded(schemaOf: (type: unknown) => z.ZodType | undefined, types: () => string[]) {
  return z.unknown().superRefine((v, ctx) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      ctx.addIssue({ code: 'custom', message: `expected an object, got ${describe(v)}` });
      return;
    }
    const type = (v as { type?: unknown }).type;
    const schema = schemaOf(type);
    if (!schema) {
      const message =
        type === undefined
          ? 'required'
          : `must be one of ${types()
              .map((x) => JSON.stringify(x))
              .join(', ')}, got ${describe(type)}`;
      ctx.addIssue({ code: 'custom', path: ['type'], message });
      return;
    }
    const r = schema.safeParse(v);
    // The kind's own issues, under this block's path (zod puts an added issue's path below the block's).
    if (!r.success) for (const issue of r.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
  });
}

/** The problems of `value` against `schema`, each "path.key: what is wrong"; the parsed value when there are none. */
export function zodProblems<S extends z.ZodType>(
  schema: S,
  value: unknown,
  path = '',
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
    else problems.push(`${at || 'config'}: ${issue.message}`);
  }
  return { problems };
}
