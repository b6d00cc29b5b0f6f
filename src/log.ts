/** A minimal line logger: one line per event, to stdout (info) or stderr (errors). */
export interface Logger {
  info(msg: string): void;
  error(msg: string): void;
}

export function consoleLogger(quiet = false): Logger {
  const stamp = () => new Date().toISOString();
  // Info lines of one turn of the event loop go out in one write: under load, a write per request line cost
  // more than the request itself. Errors are written at once, after what is pending, to keep the order.
  let pending = '';
  const flush = () => {
    if (!pending) return;
    const out = pending;
    pending = '';
    process.stdout.write(out);
  };
  process.once('exit', flush);
  return {
    info: (msg) => {
      if (quiet) return;
      if (!pending) setImmediate(flush);
      pending += `${stamp()} ${msg}\n`;
    },
    error: (msg) => {
      flush();
      process.stderr.write(`${stamp()} ${msg}\n`);
    },
  };
}

export const silentLogger: Logger = { info: () => {}, error: () => {} };

/** Query arguments whose values are secrets or bearer tokens: they never reach a log line. */
const SECRET_ARGS = /^(token|vid|key|signature|secret|password|callback_secret|roundtriptoken)$/i;

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
