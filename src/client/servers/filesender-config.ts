/**
 * FileSender's settings script, `{site}/filesender-config.js.php`: `window.filesender.config = { key: value, … }`,
 * one setting a line, its values PHP wrote as JavaScript literals (`'5242912'`, `5242880`, `true`, `''`). Only
 * those top-level lines are read, as text: the script is never run. What GET /info leaves out (the encrypted
 * chunk size, the crypto parameters, the limits) is here.
 */
export type ConfigValue = string | number | boolean | null;

export function parseConfigScript(text: string): Record<string, ConfigValue> | null {
  const start = text.indexOf('window.filesender.config');
  if (start < 0) return null;
  const out: Record<string, ConfigValue> = {};
  let depth = 0;
  for (const raw of text.slice(start).split('\n').slice(1)) {
    const line = raw.trim();
    if (depth === 0) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*?)\s*,?$/.exec(line);
      if (m) {
        const v = literal(m[2]);
        if (v !== undefined) out[m[1]] = v;
      }
      if (line.startsWith('};')) break;
    }
    depth += count(line, '{') - count(line, '}');
    if (depth < 0) break;
  }
  return out;
}

function count(s: string, c: string): number {
  return s.split(c).length - 1;
}

function literal(v: string): ConfigValue | undefined {
  if (v === 'true' || v === 'false') return v === 'true';
  if (v === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  const q = /^'((?:[^'\\]|\\.)*)'$/.exec(v) ?? /^"((?:[^"\\]|\\.)*)"$/.exec(v);
  return q ? q[1].replace(/\\(.)/g, '$1') : undefined;
}

/** A whole number from a value PHP may have written as a string ('4096000'), else null. */
export function configInt(v: ConfigValue | undefined): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

/** PHP's truthiness as the script shows it: '1' and true are on; '', '0' and false are off. */
export function configOn(v: ConfigValue | undefined): boolean {
  return v === true || (typeof v === 'number' && v !== 0) || (typeof v === 'string' && v !== '' && v !== '0');
}
