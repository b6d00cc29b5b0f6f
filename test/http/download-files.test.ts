import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asUser, HEADER_SP, startTestServer } from '../helpers/server';
import { inAWeek, patternBytes, sendChunks, sha256 } from '../helpers/upload-client';

test("GET /download/files?token=T: the recipient's files with their SHA-256, never a chunk key; unknown, closed: refused", async () => {
  const s = await startTestServer(HEADER_SP);
  try {
    const alice = asUser('alice');
    const req = (m: string, p: string, init: Parameters<typeof s.request>[2] = {}) =>
      s.request(m, p, { ...init, headers: { ...alice, ...(init.headers ?? {}) } });
    const data = [patternBytes('one', 3000), patternBytes('two', 0)];
    const t = await req('POST', '/transfer', {
      json: {
        files: [
          { name: 'photos/a.jpg', size: 3000, mime_type: 'image/jpeg' },
          { name: 'empty.txt', size: 0 },
        ],
        recipients: ['bob@example.org'],
        from: 'alice@example.org',
        expires: inAWeek(),
        subject: 'Photos',
        message: 'Hi',
      },
    });
    assert.is(t.status, 201, t.text);
    const token = t.json.recipients[0].token;
    // Not available yet: as if unknown.
    assert.is((await s.request('GET', `/download/files?token=${token}`)).status, 404);
    for (const [i, f] of t.json.files.entries()) {
      if (data[i].length) for (const r of await sendChunks(req, f.id, data[i], 1024)) assert.is(r.status, 200);
      assert.is((await req('PUT', `/file/${f.id}`, { json: { complete: true } })).status, 200);
    }
    assert.is((await req('PUT', `/transfer/${t.json.id}`, { json: { complete: true } })).status, 200);

    const r = await s.request('GET', `/download/files?token=${token}`);
    assert.is(r.status, 200, r.text);
    assert.equal(
      r.json.files,
      [
        ['photos/a.jpg', 3000, 'image/jpeg'],
        ['empty.txt', 0, 'application/octet-stream'],
      ].map(([name, size, mime_type], i) => ({
        id: t.json.files[i].id,
        name,
        size,
        mime_type,
        sha256: sha256(data[i]),
        downloads_left: true,
      })),
    );
    assert.is(r.json.transfer_id, t.json.id);
    assert.is(r.json.subject, 'Photos');
    assert.is(r.json.message, 'Hi');
    assert.is(r.json.from, 'alice@example.org');
    assert.is(r.json.expires.raw, t.json.expires.raw);
    for (const f of t.json.files) assert.not.ok(r.text.includes(f.uid), "a File uid is the sender's chunk key");

    const unknown = await s.request('GET', `/download/files?token=${'0'.repeat(32)}`);
    assert.is(unknown.status, 404);
    assert.is(unknown.json.message, 'transfer_not_found');
    assert.is((await s.request('GET', '/download/files')).status, 404);
    assert.is((await req('DELETE', `/transfer/${t.json.id}`)).status, 200);
    const closed = await s.request('GET', `/download/files?token=${token}`);
    assert.is(closed.status, 410, closed.text);
    assert.is(closed.json.message, 'transfer_closed');
  } finally {
    await s.close();
  }
});

test('GET /healthz: 200 {"status":"ok"} for anyone', async () => {
  const s = await startTestServer();
  try {
    const r = await s.request('GET', '/healthz');
    assert.is(r.status, 200);
    assert.equal(r.json, { status: 'ok' });
    assert.match(r.headers.get('x-request-id') ?? '', /^[0-9a-f]{16}$/);
  } finally {
    await s.close();
  }
});

test.run();
