import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { startTestServer, HEADER_SP, asUser, TestServer, TEST_STORAGE } from '../helpers/server';
import { fileWithDigest } from '../helpers/stored-files';
import { until } from '../helpers/until';
import { patternBytes, sha256, inAWeek } from '../helpers/upload-client';
import { signedPath, nowS } from '../helpers/signing';

let s: TestServer;
const alice = asUser('alice');
test.before(async () => {
  s = await startTestServer({ ...HEADER_SP });
});
test.after(() => s.close());

async function transfer(size: number) {
  return (
    await s.request('POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name: 'w.bin', size }] }),
    })
  ).json;
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
  // In the answer on the filesystem (digested as the bytes arrive); a moment later on S3 (read back in the background).
  assert.is(TEST_STORAGE === 'fs' ? json.sha256 : (await fileWithDigest(s, f.id, alice)).sha256, sha256(data));
  const p = await s.request('GET', `/legacyuploadprogress/${key}`);
  assert.equal(
    { ...p.json, start_time: p.json.start_time > 0 },
    { error: 0, done: true, start_time: true, bytes_processed: data.length },
  );
  const again = await fetch(`${s.url}/file/${f.id}/whole`, { method: 'POST', headers: alice, body: form(data) });
  assert.is(again.status, 409);
});

test('whole upload: wrong size, no file part, not multipart, other users', async () => {
  const t = await transfer(100);
  const f = t.files[0];
  const short = await fetch(`${s.url}/file/${f.id}/whole`, {
    method: 'POST',
    headers: alice,
    body: form(Buffer.alloc(50)),
  });
  assert.is(short.status, 409);
  assert.is((await short.json()).message, 'file_incomplete');
  const long = await fetch(`${s.url}/file/${f.id}/whole`, {
    method: 'POST',
    headers: alice,
    body: form(Buffer.alloc(150)),
  });
  assert.is(long.status, 400);
  const noFile = new FormData();
  noFile.append('x', 'y');
  assert.is((await fetch(`${s.url}/file/${f.id}/whole`, { method: 'POST', headers: alice, body: noFile })).status, 400);
  const notForm = await s.request('POST', `/file/${f.id}/whole`, { headers: alice, json: {} });
  assert.equal(
    [notForm.status, notForm.json.message, notForm.json.details],
    [400, 'bad_request_body', ['content-type']],
  );
  assert.is(
    (
      await fetch(`${s.url}/file/${f.id}/whole`, {
        method: 'POST',
        headers: asUser('bob'),
        body: form(Buffer.alloc(100)),
      })
    ).status,
    404,
  );
  const ok = await fetch(`${s.url}/file/${f.id}/whole?key=${f.uid}`, { method: 'POST', body: form(Buffer.alloc(100)) });
  assert.is(ok.status, 201);
});

test('a signed whole upload (body covered by the signature) is stored like an unsigned one', async () => {
  const secret = await s.app.services.accounts.addRemoteApp('portal', false);
  const host = new URL(s.url).host;
  const sign = (method: string, path: string, body: Buffer | string) =>
    signedPath({
      method,
      host,
      path,
      args: { remote_application: 'portal', remote_user: 'carol', timestamp: nowS() },
      secret,
      body,
    });
  const create = JSON.stringify({
    files: [{ name: 'w.bin', size: 70_000 }],
    recipients: ['r@example.org'],
    from: 'carol@example.org',
    expires: inAWeek(),
  });
  const t = await s.request('POST', sign('POST', '/transfer', create), {
    body: create,
    headers: { 'content-type': 'application/json' },
  });
  assert.is(t.status, 201, t.text);
  const data = patternBytes('signed-whole', 70_000);
  const req = new Request('http://x/', { method: 'POST', body: form(data) });
  const raw = Buffer.from(await req.arrayBuffer());
  const f = t.json.files[0];
  const r = await s.request('POST', sign('POST', `/file/${f.id}/whole`, raw), {
    body: raw,
    headers: { 'content-type': req.headers.get('content-type')! },
  });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.complete, true);
  let digest = r.json.sha256;
  if (TEST_STORAGE !== 'fs')
    await until(
      'the SHA-256',
      async () => (digest = (await s.request('GET', sign('GET', `/file/${f.id}`, ''))).json.sha256) !== null,
      15_000,
    );
  assert.is(digest, sha256(data));
});

test.run();
