import type http from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { logRequest, Logger, redactQuery } from '../../src/log';
import { identityKinds } from '../../src/auth/providers/registry';

/**
 * No answer anywhere in the test suites is a 500, and no server's log holds a stack trace while `log.debug` is
 * off (docs/hardening.md, "Internal errors in the log"). Every server the test helpers start reports here: the
 * in-process ones (test/helpers/server.ts) their 500 answers and their log lines, the binaries
 * (test/helpers/binary.ts) what they printed. Each finding is written to standard error when it happens, and at
 * the end the test process fails (exit code 1) with the list: a client's mistake must be a 4xx of the catalogue,
 * a server's fault a typed 5xx (503, 507), never `internal_error`.
 */
const found: string[] = [];

/** A line of a stack trace as V8 writes it. */
export const STACK_LINE = /\n\s+at \S/;

/** Checks still to make when the process ends (servers still running then). */
const atExit = new Set<() => void>();

function report(what: string): void {
  found.push(what);
  process.stderr.write(`internal error in a test server: ${what}\n`);
}

// After uvu has set its own exit code: a run whose tests all passed still fails for these.
process.once('exit', () => {
  for (const check of atExit) check();
  if (!found.length) return;
  process.stderr.write(
    `\n${found.length} internal error(s) in the test servers (a 500 answer, an internal_error log line, or a stack trace without log.debug):\n${found.map((f) => `  ${f}`).join('\n')}\n`,
  );
  process.exitCode = 1;
});

/** What was found so far, and forgets it: for the check's own test, which makes findings on purpose. */
export function takeInternalErrors(): string[] {
  return found.splice(0);
}

/** Records every 500 the server answers, with its request line and uid (the X-Request-Id it sent). */
export function watchAnswers(server: http.Server, label: string): void {
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.once('close', () => {
      if (!res.headersSent || res.statusCode !== 500) return;
      const [p, q = ''] = (req.url ?? '').split('?', 2);
      report(
        `${label}: ${req.method} ${p}${redactQuery(
          q,
          identityKinds().flatMap((k) => k.secretQueryArgs ?? []),
        )} answered 500 uid=${String(res.getHeader('x-request-id'))}`,
      );
    });
  });
}

/** Checks one log line: internal_error, or a stack trace while debug() is false. */
function checkLine(label: string, line: string, debug: boolean): void {
  if (/\binternal_error\b/.test(line)) report(`${label}: log line ${oneLine(line)}`);
  else if (!debug && STACK_LINE.test(line))
    report(`${label}: stack trace in the log without log.debug: ${oneLine(line)}`);
}

function oneLine(line: string): string {
  return line.replace(/\s*\n\s*/g, ' | ').slice(0, 400);
}

/** The logger an in-process server gets: the test's own (or none), with every line checked on its way. */
export function watchedLogger(inner: Logger, label: () => string, debug: () => boolean): Logger {
  return {
    info: (msg, fields) => {
      checkLine(label(), msg, debug());
      inner.info(msg, fields);
    },
    error: (msg, fields) => {
      checkLine(label(), msg, debug());
      inner.error(msg, fields);
    },
    request: (e) => logRequest(inner, e),
  };
}

/**
 * Checks everything a server process printed (the readable or the JSON log): a request answered 500, an
 * internal_error line, a stack trace while its config's log.debug is off.
 */
export function checkOutput(label: string, output: string, debug: boolean): void {
  for (const line of output.split('\n')) {
    const request = /^\S+ ([A-Z]+) (\S+) 500 [\d.]+ms$/.exec(line);
    if (request) report(`${label}: ${request[1]} ${request[2]} answered 500`);
    else if (/"status":500\b/.test(line)) report(`${label}: answered 500: ${oneLine(line)}`);
    else if (/\binternal_error\b/.test(line)) report(`${label}: log line ${oneLine(line)}`);
  }
  if (!debug) {
    const m = /.*\n([ \t]+at \S.*(\n|$))+/.exec(output);
    if (m) report(`${label}: stack trace in the log without log.debug: ${oneLine(m[0])}`);
  }
}

/** Checks a server process's output once it has exited, and at the end of the test process if it has not. */
export function watchProcess(proc: ChildProcess, label: string, output: () => string, debug: () => boolean): void {
  const check = () => {
    atExit.delete(check);
    checkOutput(label, output(), debug());
  };
  atExit.add(check);
  // 'close': after the process's output has all been read.
  proc.once('close', check);
}
