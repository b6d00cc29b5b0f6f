import fs from 'node:fs';
import path from 'node:path';

/** One finished HTTP request, as the request log sees it. */
export interface RequestEntry {
  /** The request id: also the `uid` of an error answer and the X-Request-Id header. */
  id: string;
  method: string;
  /** The route pattern that answered (`/file/:id/chunk/:offset`), or null when none did. */
  route: string | null;
  /** The path with secret query arguments masked. */
  path: string;
  status: number;
  ms: number;
  /** Who asked: a user id, `guest:<id>`, `app:<name>`, or null. */
  user: string | null;
  /** Bytes sent and received for this request, headers included. */
  bytes: number;
  bytes_in: number;
}

/** Where ferry's log lines go: info to standard output, errors to standard error, or both to `log.file`. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A finished request; a logger without it gets the readable line through info. */
  request?(e: RequestEntry): void;
}

/** The readable request line (the default format): method, path (secrets masked), status, duration. */
export function requestLine(e: RequestEntry): string {
  return `${e.method} ${e.path} ${e.status} ${e.ms.toFixed(1)}ms`;
}

export function logRequest(log: Logger, e: RequestEntry): void {
  if (log.request) log.request(e);
  else log.info(requestLine(e));
}

/** Where lines are written: the process's streams, or one file for both kinds. */
interface Sink {
  out(text: string): void;
  err(text: string): void;
}

const processSink: Sink = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/**
 * Appends to `file` (created 0640, its folder made if missing), with plain synchronous writes of whole
 * batches: nothing is lost when the process exits, and lines keep their order. reopen() closes the file and
 * opens the same name again: after logrotate has moved the old file away, lines go to a new one. A failed
 * reopen keeps writing where it did and says why on standard error.
 */
class FileSink implements Sink {
  private fd: number;
  constructor(private readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, 'a', 0o640);
  }

  private write(text: string): void {
    try {
      fs.writeSync(this.fd, text);
    } catch (e) {
      process.stderr.write(`log file ${this.file}: ${(e as Error).message}\n${text}`);
    }
  }
  out(text: string): void {
    this.write(text);
  }
  err(text: string): void {
    this.write(text);
  }

  reopen(): void {
    let next: number;
    try {
      next = fs.openSync(this.file, 'a', 0o640);
    } catch (e) {
      process.stderr.write(`log file ${this.file}: cannot reopen: ${(e as Error).message}\n`);
      return;
    }
    const old = this.fd;
    this.fd = next;
    fs.closeSync(old);
  }

  close(): void {
    fs.closeSync(this.fd);
    this.fd = -1;
  }
}

export type LogFormat = 'text' | 'json';

/** The server's logger, with what SIGHUP and shutdown need. */
export interface ServerLogger extends Logger {
  /** Reopens log.file (SIGHUP, after logrotate); nothing to do when logging to the process's streams. */
  reopen(): void;
  /** Writes out what is pending and closes the file. */
  close(): Promise<void>;
}

/**
 * The logger `serve` runs with, from the config's `log`: the readable line (text) or one JSON object per
 * line (json: time, level, msg, and for requests id, method, route, path, status, ms, user, bytes), to the
 * process's streams or to log.file. Nothing secret reaches it: request paths come masked (redactQuery),
 * and messages are written secret-free where they are made.
 */
export function createLogger(opts: { format?: LogFormat; file?: string | null; quiet?: boolean } = {}): ServerLogger {
  const fileSink = opts.file ? new FileSink(opts.file) : null;
  const sink: Sink = fileSink ?? processSink;
  const json = opts.format === 'json';
  // Info lines of one turn of the event loop go out in one write: under load, a write per request line cost
  // more than the request itself. Errors are written at once, after what is pending, to keep the order.
  let pending = '';
  const flush = () => {
    if (!pending) return;
    const out = pending;
    pending = '';
    sink.out(out);
  };
  process.once('exit', flush);
  const info = (line: string) => {
    if (opts.quiet) return;
    if (!pending) setImmediate(flush);
    pending += line;
  };
  const stamp = () => new Date().toISOString();
  const textLine = (msg: string) => `${stamp()} ${msg}\n`;
  const jsonLine = (level: string, msg: string, fields?: Record<string, unknown>) =>
    `${JSON.stringify({ time: stamp(), level, msg, ...(fields ?? {}) })}\n`;
  return {
    info: (msg, fields) => info(json ? jsonLine('info', msg, fields) : textLine(msg)),
    error: (msg, fields) => {
      flush();
      sink.err(json ? jsonLine('error', msg, fields) : textLine(msg));
    },
    request: (e) =>
      info(json ? jsonLine('info', 'request', { ...e, ms: Math.round(e.ms * 10) / 10 }) : textLine(requestLine(e))),
    reopen: () => {
      flush();
      fileSink?.reopen();
    },
    close: async () => {
      flush();
      fileSink?.close();
    },
  };
}

/** The readable lines on the process's streams (what tests and CLI commands use). */
export function consoleLogger(quiet = false): Logger {
  return createLogger({ quiet });
}

export const silentLogger: Logger = { info: () => {}, error: () => {} };

/**
 * Query arguments whose values are secrets or bearer tokens: they never reach a log line. An identity
 * provider's answer carries an authorization code and its state, its logout an ID token; a kind whose answers
 * carry others names them (`secretQueryArgs`, src/auth/providers/kind.ts), and the request log adds them here.
 */
const SECRET_ARGS = [
  'token',
  'vid',
  'key',
  'signature',
  'secret',
  'password',
  'callback_secret',
  'roundtriptoken',
  'code',
  'state',
  'id_token_hint',
];

/** The query with the values of secret arguments (those above and `more`, by name in any case) masked. */
export function redactQuery(rawQuery: string, more: readonly string[] = []): string {
  if (!rawQuery) return '';
  const secret = new Set([...SECRET_ARGS, ...more].map((a) => a.toLowerCase()));
  const parts = rawQuery.split('&').map((pair) => {
    const i = pair.indexOf('=');
    const name = i < 0 ? pair : pair.slice(0, i);
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      /* keep as is */
    }
    return secret.has(decoded.toLowerCase()) && i >= 0 ? `${name}=***` : pair;
  });
  return `?${parts.join('&')}`;
}
