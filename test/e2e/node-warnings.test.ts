import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { runFerry, startBinary } from '../helpers/binary';
import { rawConnect } from '../helpers/raw-socket';
import { tempDir } from '../helpers/server';

/**
 * Inside the single executable every dependency counts as application code to Node, so a dependency's call
 * to the legacy url.parse() printed Node's DEP0169 deprecation warning. Koa's path parser made that call for
 * request targets it cannot split itself (src/http/middleware/request-target.ts); nodemailer makes it for an
 * SMTP URL the WHATWG parser refuses (refused by the config check now).
 */
async function rawAnswer(port: number, requestLine: string): Promise<string> {
  const c = await rawConnect(port);
  c.write(`${requestLine}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  await c.closed;
  return c.received();
}

test('requests in the absolute, asterisk and fragment forms are answered without a DEP0169 warning', async () => {
  const srv = await startBinary();
  try {
    const port = Number(new URL(srv.url).port);
    const absolute = await rawAnswer(port, `GET http://127.0.0.1:${port}/rest.php/echo/one?x=1 HTTP/1.1`);
    assert.match(absolute, /^HTTP\/1\.1 200 /);
    assert.match(absolute, /"args":\["one"\]/);
    const fragment = await rawAnswer(port, 'GET /rest.php/echo/two#part HTTP/1.1');
    assert.match(fragment, /^HTTP\/1\.1 200 /);
    assert.match(fragment, /"args":\["two"\]/);
    assert.match(await rawAnswer(port, 'OPTIONS * HTTP/1.1'), /^HTTP\/1\.1 404 /);
    // Node's parser refuses some of these itself; what reaches Koa is answered as an unknown path.
    assert.match(await rawAnswer(port, 'GET /info\u00a0 HTTP/1.1'), /^HTTP\/1\.1 40[04] /);
    assert.match(await rawAnswer(port, 'GET /info HTTP/1.1'), /^HTTP\/1\.1 200 /);
    // Warnings are written when emitted; give the event loop a moment to flush them.
    await new Promise((r) => setTimeout(r, 300));
    assert.not.match(srv.output(), /DEP0169|DeprecationWarning/);
  } finally {
    await srv.stop();
  }
});

test('config check refuses an SMTP URL that only the legacy parser would read, without repeating it', () => {
  const dir = tempDir();
  const file = path.join(dir, 'ferry.json');
  fs.writeFileSync(file, JSON.stringify({ mail: { transport: 'smtp://mailer:s3cret@mail host:25' } }));
  const r = runFerry(['config', 'check', '-c', file]);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /mail\.transport: an smtp:\/\/ or smtps:\/\/ URL/);
  assert.not.match(r.stderr, /s3cret/);
  assert.not.match(r.stderr, /DEP0169|DeprecationWarning/);
  fs.writeFileSync(file, JSON.stringify({ mail: { transport: 'smtp://mailer:s%40cret@mail.example.org:587' } }));
  const ok = runFerry(['config', 'check', '-c', file]);
  assert.is(ok.code, 0, ok.stderr);
});

test.run();
