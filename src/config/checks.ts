import net from 'node:net';

/** The building blocks of the config's schema: each check adds `path: problem` lines, so every problem is reported at once. */
export type Check = (value: unknown, path: string, problems: string[]) => void;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

export function int(min: number, max = Number.MAX_SAFE_INTEGER): Check {
  return (v, path, problems) => {
    if (!isInt(v)) problems.push(`${path}: expected an integer, got ${describe(v)}`);
    else if (v < min || v > max) problems.push(`${path}: must be between ${min} and ${max}, got ${v}`);
  };
}
export const bool: Check = (v, path, problems) => {
  if (typeof v !== 'boolean') problems.push(`${path}: expected true or false, got ${describe(v)}`);
};
export function str(pattern?: RegExp, hint?: string): Check {
  return (v, path, problems) => {
    if (typeof v !== 'string') problems.push(`${path}: expected a string, got ${describe(v)}`);
    else if (pattern && !pattern.test(v))
      problems.push(`${path}: ${hint ?? 'invalid value'}, got ${JSON.stringify(v)}`);
  };
}
/**
 * mail.transport: an smtp:// or smtps:// URL that the WHATWG URL parser reads. nodemailer hands a URL that parser
 * refuses to Node's legacy url.parse(), which guesses at it (and prints Node's DEP0169 warning): a broken URL
 * is refused here instead. The value is not repeated in the problem: it may hold the SMTP password.
 */
export const smtpUrl: Check = (v, path, problems) => {
  if (typeof v !== 'string') problems.push(`${path}: expected a string, got ${describe(v)}`);
  else if (!/^smtps?:\/\//.test(v) || !URL.canParse(v))
    problems.push(
      `${path}: an smtp:// or smtps:// URL such as "smtp://user:password@host:587" (percent-encode special characters)`,
    );
};
/** An IP address, or a CIDR range whose prefix fits its family (metrics.allow). */
export function ipOrCidr(v: unknown, path: string, problems: string[]): void {
  const [addr, bits, extra] = typeof v === 'string' ? v.split('/') : [];
  const family = typeof addr === 'string' ? net.isIP(addr) : 0;
  const ok =
    family !== 0 &&
    extra === undefined &&
    (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)));
  if (!ok) problems.push(`${path}: an IP address or CIDR range such as "10.0.0.0/8", got ${describe(v)}`);
}
export function oneOf(values: readonly unknown[]): Check {
  return (v, path, problems) => {
    if (!values.includes(v))
      problems.push(`${path}: must be one of ${values.map((x) => JSON.stringify(x)).join(', ')}, got ${describe(v)}`);
  };
}
export function arrayOf(item: Check): Check {
  return (v, path, problems) => {
    if (!Array.isArray(v)) problems.push(`${path}: expected an array, got ${describe(v)}`);
    else v.forEach((x, i) => item(x, `${path}[${i}]`, problems));
  };
}
export function nullable(inner: Check): Check {
  return (v, path, problems) => {
    if (v !== null) inner(v, path, problems);
  };
}
export function object(fields: Record<string, Check>, required: string[] = []): Check {
  return (v, path, problems) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      problems.push(`${path || 'config'}: expected an object, got ${describe(v)}`);
      return;
    }
    const rec = v as Record<string, unknown>;
    for (const key of Object.keys(rec)) {
      const sub = path ? `${path}.${key}` : key;
      if (!(key in fields)) problems.push(`${sub}: unknown key`);
      else fields[key](rec[key], sub, problems);
    }
    for (const key of required) if (!(key in rec)) problems.push(`${path ? `${path}.` : ''}${key}: required`);
  };
}
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}
