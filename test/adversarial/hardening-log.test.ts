import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import net from 'node:net';
import type { Context } from 'koa';
import { startTestServer, HEADER_SP, TestServer } from '../helpers/server';
import { capturingLogger } from '../helpers/session';
import { checkOutput, STACK_LINE, takeInternalErrors, watchedLogger } from '../helpers/internal-errors';
import { errorMiddleware } from '../../src/http/middleware/errors';
import { silentLogger } from '../../src/log';

// An internal error is logged as one line carrying the uid the client gets; its stack trace only with
// log.debug on. Before, every internal error wrote its stack to the log. No answer in the test suites may be a
// 500 (test/helpers/internal-errors.ts fails the process on one), so the error middleware is called here directly,
// in the server's own Koa app, on a real failure of its database: what it answers and what it logs.

/** The server's Koa context for `GET /transfer`, as the request log leaves it, without a connection. */
function contextOf(s: TestServer, uid: string): Context {
  const req = new http.IncomingMessage(new net.Socket());
  req.method = 'GET';
  req.url = '/transfer';
  req.headers = { host: '127.0.0.1', accept: 'application/json' };
  req.complete = true;
  const ctx = s.app.http.createContext(req, new http.ServerResponse(req));
  Object.assign(ctx.state, { requestId: uid, services: s.app.services });
  return ctx;
}

/** What the error middleware answers and logs when reading a table the database does not have fails inside. */
async function internalError(debug: boolean) {
  const s = await startTestServer({ ...HEADER_SP, log: { format: 'text', file: null, debug } });
  try {
    const { lines, log } = capturingLogger();
    const ctx = contextOf(s, '0123456789abcdef');
    await errorMiddleware(log)(ctx, async () => {
      await s.app.db.query('SELECT * FROM transfers_gone');
    });
    return { status: ctx.status, body: ctx.body as Record<string, unknown>, lines };
  } finally {
    await s.close();
  }
}

test('without log.debug: the answer is internal_error in the spec shape, logged as one line with its uid, no stack', async () => {
  const { status, body, lines } = await internalError(false);
  assert.is(status, 500);
  assert.equal(body, { message: 'internal_error', uid: '0123456789abcdef', details: null });
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /^error uid=0123456789abcdef GET \/transfer internal_error: /);
  assert.match(lines[0], /transfers_gone/, 'the cause is named');
  assert.not.match(lines[0], STACK_LINE, `a stack trace reached the log: ${lines[0].slice(0, 300)}`);
  assert.not.ok(lines[0].includes('\n'), 'one line');
});

test('with log.debug on: the stack trace is logged too', async () => {
  const { status, lines } = await internalError(true);
  assert.is(status, 500);
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /^error uid=0123456789abcdef GET \/transfer internal_error: /);
  assert.match(lines[0], STACK_LINE);
});

test('the suites fail on a 500, an internal_error line, or a stack trace without log.debug, and name the request', () => {
  assert.equal(takeInternalErrors(), [], 'nothing found before');
  const debug = { on: false };
  const log = watchedLogger(
    silentLogger,
    () => 'server A',
    () => debug.on,
  );
  log.info('GET /transfer 200 1.0ms');
  log.info('refused uid=ab12 GET /transfer/9 404 transfer_not_found');
  log.error('error uid=cd34 PUT /transfer/1 internal_error: TypeError: x is undefined');
  log.error('stream failed: Error: boom\n    at f (/x.ts:1:2)');
  debug.on = true;
  log.error('stream failed: Error: boom\n    at f (/x.ts:1:2)');
  checkOutput(
    'binary B',
    '2026-01-01T00:00:00.000Z GET /user 200 2.0ms\n2026-01-01T00:00:00.100Z POST /transfer?token=*** 500 3.1ms\n',
    true,
  );
  checkOutput(
    'binary C',
    '{"time":"t","level":"info","msg":"request","id":"ef56","method":"GET","path":"/","status":500}\n',
    true,
  );
  checkOutput('binary D', 'TypeError: x is undefined\n    at f (/x.ts:1:2)\n    at g (/x.ts:3:4)\n', false);
  checkOutput('binary E', 'TypeError: x is undefined\n    at f (/x.ts:1:2)\n', true);
  const found = takeInternalErrors();
  assert.is(found.length, 5, found.join('\n'));
  assert.match(found[0], /^server A: log line error uid=cd34 PUT \/transfer\/1 internal_error/);
  assert.match(found[1], /^server A: stack trace in the log without log\.debug: stream failed/);
  assert.is(found[2], 'binary B: POST /transfer?token=*** answered 500');
  assert.match(found[3], /^binary C: answered 500: .*"id":"ef56"/);
  assert.match(found[4], /^binary D: stack trace in the log without log\.debug: TypeError: x is undefined \| at f/);
});

test.run();
