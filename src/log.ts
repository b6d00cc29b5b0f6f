/** A minimal line logger: one line per event, to stdout (info) or stderr (errors). */
export interface Logger {
  info(msg: string): void;
  error(msg: string): void;
}

export function consoleLogger(quiet = false): Logger {
  const stamp = () => new Date().toISOString();
  return {
    info: (msg) => {
      if (!quiet) process.stdout.write(`${stamp()} ${msg}\n`);
    },
    error: (msg) => process.stderr.write(`${stamp()} ${msg}\n`),
  };
}

export const silentLogger: Logger = { info: () => {}, error: () => {} };

/** Query arguments whose values are secrets or bearer tokens: they never reach a log line. */
const SECRET_ARGS = /^(token|vid|key|signature|secret|password|callback_secret)$/i;

export function redactQuery(rawQuery: string): string {
  if (!rawQuery) return '';
  const parts = rawQuery.split('&').map((pair) => {
    const i = pair.indexOf('=');
    const name = i < 0 ? pair : pair.slice(0, i);
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      /* keep as is */
    }
    return SECRET_ARGS.test(decoded) && i >= 0 ? `${name}=***` : pair;
  });
  return `?${parts.join('&')}`;
}
