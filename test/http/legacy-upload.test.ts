import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, TestServer } from '../helpers/server';
import { patternBytes, sha256, inAWeek } from '../helpers/upload-client';

let s: TestServer;
const alice = asUser('alice');
test.before(async () => {
  s = await startTestServer({ ...HEADER_SP });
});
test.after(() => s.close());

async function transfer(size: number) {
  return (await s.request('POST', '/transfer', { headers: alice, json: { files: [{ name: 'w.bin', size }], recipients: ['r@example.org'], from: 'alice@example.org', expires: inAWeek() } })).json;
}

function form(data: Buffer, key?: string): FormData {
  const f = new FormData();
  if (key) f.append('PHP_SESSION_UPLOAD_PROGRESS', key);
  f.append('file', new Blob([new Uint8Array(data)]), 'w.bin');
  return f;
}

test('POST /file/{id}/whole streams a multipart upload to disk, completes it, and reports progress', async () => {
  const data = patternBytes('whole', 3 * 1024 * 1024 + 17);
  const t = await transfer(data.length);
  const f = t.files[0];
  const key = 'k'.repeat(20);
  const r = await fetch(`${s.url}/file/${f.id}/whole`, { method: 'POST', headers: alice, body: form(data, key) });
  const json = await r.json();
  assert.is(r.status, 201, JSON.stringify(json));
  assert.is(r.headers.get('location'), `${s.url}/file/${f.id}`);
  assert.is(json.complete, true);
  assert.is(json.sha256, sha256(data));
  const p = await s.request('GET', `/legacyuploadprogress/${key}`);
  assert.equal({ ...p.json, start_time: p.json.start_time > 0 }, { error: 0, done: true, start_time: true, bytes_processed: data.length });
  const again = await fetch(`${s.url}/file/${f.id}/whole`, { method: 'POST', headers: alice, body: form(data) });
  assert.is(again.status, 409);
});

test('whole upload: wrong size, no file part, not multipart, other users', async () => {
  const t = await transfer(100);
  const f = t.files[0];
  const short = await fetch(`${s.url}/file/${f.id}/whole`, { method: 'POST', headers: alice, body: form(Buffer.alloc(50)) });
  assert.is(short.status, 409);
  assert.is((await short.json()).message, 'file_incomplete');
  const long = await fetch(`${s.url}/file/${f.id}/whole`, { method: 'POST', headers: alice, body: form(Buffer.alloc(150)) });
  assert.is(long.status, 400);
  const noFile = new FormData();
  noFile.append('x', 'y');
  assert.is((await fetch(`${s.url}/file/${f.id}/whole`, { method: 'POST', headers: alice, body: noFile })).status, 400);
  assert.is((await s.request('POST', `/file/${f.id}/whole`, { headers: alice, json: {} })).status, 415);
  assert.is((await fetch(`${s.url}/file/${f.id}/whole`, { method: 'POST', headers: asUser('bob'), body: form(Buffer.alloc(100)) })).status, 404);
  const ok = await fetch(`${s.url}/file/${f.id}/whole?key=${f.uid}`, { method: 'POST', body: form(Buffer.alloc(100)) });
  assert.is(ok.status, 201);
});

test.run();
