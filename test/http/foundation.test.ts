import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, TestServer, TEST_DB } from '../helpers/server';

let s: TestServer;
const logLines: string[] = [];

test.before(async () => {
  s = await startTestServer(
    { default_lang: 'nl', disclose: ['upload_chunk_size', 'max_transfer_files'] },
    { log: { info: (m) => logLines.push(m), error: (m) => logLines.push(m) } },
  );
});
test.after(async () => s.close());

function assertErrorBody(body: any, message: string) {
  assert.type(body, 'object');
  assert.is(body.message, message);
  assert.match(body.uid, /^[0-9a-f]{16}$/);
  assert.ok('details' in body);
}

test('GET /info returns url and exactly the disclosed keys', async () => {
  const r = await s.request('GET', '/info');
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type')!, /application\/json/);
  assert.is(r.json.url, s.url);
  assert.is(r.json.upload_chunk_size, 5242880);
  assert.is(r.json.max_transfer_files, 30);
  assert.not.ok('max_transfer_size' in r.json);
  assert.not.ok('data_dir' in r.json);
});

test('REST answers under /rest.php/ too', async () => {
  const a = await s.request('GET', '/rest.php/info');
  assert.is(a.status, 200);
  assert.is(a.json.url, s.url);
  const e = await s.request('GET', '/rest.php/echo/x/y%20z');
  assert.is(e.status, 200);
  assert.equal(e.json.args, ['x', 'y z']);
});

test('GET /echo mirrors the request body and reports an anonymous caller', async () => {
  const r = await s.request('POST', '/echo/a', { json: { hello: ['w', 1] } });
  assert.is(r.status, 200);
  assert.equal(r.json.request, { hello: ['w', 1] });
  assert.is(r.json.user, null);
  assert.is(r.json.auth.remote, false);
});

test('unknown path: 404 rest_endpoint_not_found in the spec error shape', async () => {
  const r = await s.request('GET', '/no/such/thing');
  assert.is(r.status, 404);
  assertErrorBody(r.json, 'rest_endpoint_not_found');
});

test('known path with another method: 405 rest_method_not_allowed', async () => {
  const r = await s.request('DELETE', '/info');
  assert.is(r.status, 405);
  assertErrorBody(r.json, 'rest_method_not_allowed');
});

test('malformed JSON: 400 bad_request_body, and the uid appears in the log line', async () => {
  const r = await s.request('POST', '/echo', { body: '{"a":', headers: { 'content-type': 'application/json' } });
  assert.is(r.status, 400);
  assertErrorBody(r.json, 'bad_request_body');
  assert.ok(
    logLines.some((l) => l.includes(r.json.uid)),
    'uid logged',
  );
  assert.not.match(r.text, /at .*\.ts/); // no stack trace
});

test('an oversized JSON body answers 413 request_body_too_large', async () => {
  const big = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) });
  const r = await s.request('POST', '/echo', { body: big, headers: { 'content-type': 'application/json' } });
  assert.is(r.status, 413);
  assertErrorBody(r.json, 'request_body_too_large');
});

test('JSONP: a valid callback wraps the JSON as text/javascript with nosniff', async () => {
  const r = await s.request('GET', '/info?callback=window.ferry_cb');
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type')!, /text\/javascript/);
  assert.is(r.headers.get('x-content-type-options'), 'nosniff');
  assert.ok(r.text.startsWith('window.ferry_cb({'));
  assert.ok(r.text.endsWith('});'));
  const inner = JSON.parse(r.text.slice('window.ferry_cb('.length, -2));
  assert.is(inner.url, s.url);
});

test('JSONP: errors are wrapped too', async () => {
  const r = await s.request('GET', '/nothing?callback=cb');
  assert.is(r.status, 404);
  assert.ok(r.text.startsWith('cb({"message":"rest_endpoint_not_found"'));
});

test('JSONP: hostile callback names are refused and never echoed', async () => {
  for (const cb of ['alert(1)', 'a;b', '<script>', 'a b', '1abc', 'a..b', 'x'.repeat(200), 'a[0]', "a'b"]) {
    const r = await s.request('GET', `/info?callback=${encodeURIComponent(cb)}`);
    assert.is(r.status, 400, cb);
    assertErrorBody(r.json, 'rest_bad_parameter');
    assert.equal(r.json.details, ['callback']);
    assert.not.ok(r.text.includes(cb), cb);
  }
});

test('JSONP on POST: 405 rest_jsonp_get_only', async () => {
  const r = await s.request('POST', '/echo?callback=cb', { json: {} });
  assert.is(r.status, 405);
  assertErrorBody(r.json, 'rest_jsonp_get_only');
});

test('GET /lang merges the chosen language over the default over English', async () => {
  const fr = await s.request('GET', '/lang', { headers: { 'Accept-Language': 'fr-CH, de;q=0.5' } });
  assert.is(fr.status, 200);
  assert.is(fr.json.download, 'Télécharger');
  assert.is(fr.json.app_name, 'ferry'); // only in en: merged from English
  const def = await s.request('GET', '/lang', { headers: { 'Accept-Language': 'ja' } });
  assert.is(def.json.download, 'Downloaden'); // configured default_lang nl
  const q = await s.request('GET', '/lang?lang=de', { headers: { 'Accept-Language': 'fr' } });
  assert.is(q.json.download, 'Herunterladen');
  const ranked = await s.request('GET', '/lang', { headers: { 'Accept-Language': 'de;q=0.2, fr;q=0.9' } });
  assert.is(ranked.json.download, 'Télécharger');
});

test('security headers on every answer', async () => {
  const r = await s.request('GET', '/info');
  assert.is(r.headers.get('x-content-type-options'), 'nosniff');
  assert.is(r.headers.get('x-frame-options'), 'DENY');
  assert.match(r.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
});

test('the request log masks secret query arguments', async () => {
  await s.request('GET', '/info?token=SECRET1&vid=SECRET2&signature=SECRET3&key=SECRET4&keep=visible');
  const line = logLines.find((l) => l.includes('GET /info?token='))!;
  assert.ok(line, 'logged');
  assert.not.match(line, /SECRET/);
  assert.match(line, /keep=visible/);
  assert.match(line, / 401 /); // the made-up vid is refused, and still masked
});

test("the data directory and the database (tokens, secrets, password hashes) are readable by ferry's user only", () => {
  const data = path.join(s.dir, 'data');
  const mode = (f: string) => fs.statSync(f).mode & 0o777;
  assert.is(mode(data), 0o700);
  // On PostgreSQL the metadata is the database server's to protect; the data dir holds the files only.
  if (TEST_DB === 'sqlite') for (const f of ['ferry.db', 'ferry.db-wal']) assert.is(mode(path.join(data, f)), 0o600, f);
});

test.run();
