/**
 * A strict reader of Prometheus' text exposition format (version 0.0.4): every line must be a HELP, a TYPE or
 * a sample of a family whose TYPE came first, with well-formed labels and a number. Anything else throws, so a
 * test fails on output a Prometheus server would refuse.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample with this name and exactly these labels (0 when absent: a counter not yet increased). */
  value(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function parseNumber(s: string, line: string): number {
  // Prometheus reads values with Go's strconv.ParseFloat: NaN and Inf in any letter case (prom-client writes "Nan").
  if (/^nan$/i.test(s)) return NaN;
  const inf = /^([-+]?)inf(inity)?$/i.exec(s);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s))
    throw new Error(`not a number: ${JSON.stringify(s)} in ${JSON.stringify(line)}`);
  return Number(s);
}

function parseLabels(text: string, line: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 0;
  for (;;) {
    while (text[i] === ' ') i++;
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`bad labels in ${JSON.stringify(line)}`);
    const name = text.slice(i, eq).trim();
    if (!LABEL.test(name) || name in labels)
      throw new Error(`bad or repeated label name ${JSON.stringify(name)} in ${JSON.stringify(line)}`);
    if (text[eq + 1] !== '"') throw new Error(`unquoted label value in ${JSON.stringify(line)}`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`bad escape in ${JSON.stringify(line)}`);
      } else value += text[j];
    }
    if (j >= text.length) throw new Error(`unterminated label value in ${JSON.stringify(line)}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new Error(`expected , or } in ${JSON.stringify(line)}`);
  }
}

export function parsePrometheusText(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const samples: Sample[] = [];
  const familyOf = (name: string): string | undefined => {
    if (types.has(name)) return name;
    for (const [family, type] of types) {
      if ((SUFFIXES[type] ?? []).some((s) => s && name === family + s)) return family;
    }
    return undefined;
  };
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) {
        if (/^# (HELP|TYPE)\b/.test(line)) throw new Error(`malformed ${JSON.stringify(line)}`);
        continue; // a comment
      }
      const [, kind, name, rest] = m;
      if (!NAME.test(name)) throw new Error(`bad metric name in ${JSON.stringify(line)}`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest) || types.has(name)) throw new Error(`bad or repeated TYPE: ${JSON.stringify(line)}`);
        if (samples.some((s) => s.name === name)) throw new Error(`TYPE after samples of ${name}`);
        types.set(name, rest);
      } else {
        if (helped.has(name)) throw new Error(`repeated HELP for ${name}`);
        helped.add(name);
      }
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{|\s)/.exec(line);
    if (!m) throw new Error(`not a sample: ${JSON.stringify(line)}`);
    const name = m[1];
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest.slice(1), line));
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2)
      throw new Error(`bad value in ${JSON.stringify(line)}`);
    const value = parseNumber(parts[0], line);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1]))
      throw new Error(`bad timestamp in ${JSON.stringify(line)}`);
    const family = familyOf(name);
    if (!family) throw new Error(`sample ${name} has no TYPE before it`);
    if (types.get(family) === 'histogram' && name === `${family}_bucket` && !('le' in labels))
      throw new Error(`bucket without le: ${JSON.stringify(line)}`);
    samples.push({ name, labels, value });
  }
  const same = (a: Record<string, string>, b: Record<string, string>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
  return {
    types,
    samples,
    value(name, labels = {}) {
      const found = samples.filter((s) => s.name === name && same(s.labels, labels));
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
      return found[0]?.value ?? 0;
    },
  };
}
