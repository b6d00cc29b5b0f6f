import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, TestServer, sql } from '../helpers/server';
import { movableClock } from '../helpers/session';
import { patternBytes, sendChunks } from '../helpers/upload-client';
import { assertErrorShape } from './fixture';
import { multipart } from './access-world';

// A withdrawn or expired guest's unfinished Transfers stop taking data and cannot complete, whoever sends:
// the guest's token stops at once, and the chunk-upload key (`?key=<file uid>`) it was given must stop too.
// Before, the guest finished the upload by key and the recipients were mailed "from" the withdrawn guest.
const CHUNK = 1024;
const SIZE = 2 * CHUNK;
const alice = asUser('alice');
const time = movableClock();
let s: TestServer;

test.before(async () => {
  s = await startTestServer(
    { ...HEADER_SP, upload_chunk_size: CHUNK, chunk_upload_security: 'key' },
    { clock: time.clock },
  );
});
test.after(async () => {
  await s.close();
});

async function invite(expires?: number) {
  const r = await s.request('POST', '/guest', {
    headers: alice,
    json: { recipient: 'guest@example.org', from: 'alice@example.org', options: [], ...(expires ? { expires } : {}) },
  });
  assert.is(r.status, 201, r.text);
  return r.json;
}

/** The guest's Transfer of two files: the first uploaded and completed, the second with its first chunk only. */
async function guestTransfer(vid: string) {
  const q = `?vid=${vid}`;
  const t = await s.request('POST', `/transfer${q}`, {
    json: {
      files: [
        { name: 'a.bin', size: SIZE },
        { name: 'b.bin', size: SIZE },
      ],
      recipients: ['carol@example.org'],
      from: 'guest@example.org',
      expires: time.clock() + 7 * 86400,
    },
  });
  assert.is(t.status, 201, t.text);
  const [a, b] = t.json.files;
  for (const r of await sendChunks(s.request, a.id, patternBytes('a', SIZE), CHUNK, { query: q }))
    assert.is(r.status, 200, r.text);
  assert.is((await s.request('PUT', `/file/${a.id}${q}`, { json: { complete: true } })).status, 200);
  for (const r of await sendChunks(s.request, b.id, patternBytes('b', SIZE), CHUNK, { query: q, order: [0] }))
    assert.is(r.status, 200, r.text);
  return { id: t.json.id as number, a, b, key: b.uid as string };
}

const chunkHeaders = {
  'content-type': 'application/octet-stream',
  'X-Service-File-Size': String(SIZE),
  'X-Service-Chunk-Offset': String(CHUNK),
  'X-Service-Chunk-Size': String(CHUNK),
};

/** Every way to go on with the upload, by key and as the inviting user: each refused with `want`. */
async function assertStopped(t: Awaited<ReturnType<typeof guestTransfer>>, want: [number, string]) {
  const k = `?key=${t.key}`;
  const tries: [string, string, string, Parameters<TestServer['request']>[2]][] = [
    [
      'chunk by key',
      'PUT',
      `/file/${t.b.id}/chunk/${CHUNK}${k}`,
      { body: patternBytes('late', CHUNK), headers: chunkHeaders },
    ],
    ['whole file by key', 'POST', `/file/${t.b.id}/whole${k}`, multipart(patternBytes('late', SIZE))],
    ['file completion by key', 'PUT', `/file/${t.b.id}${k}`, { json: { complete: true } }],
    ['transfer completion by key', 'PUT', `/transfer/${t.id}${k}`, { json: { complete: true } }],
    [
      'chunk by the inviter',
      'PUT',
      `/file/${t.b.id}/chunk/${CHUNK}`,
      { body: patternBytes('late', CHUNK), headers: { ...alice, ...chunkHeaders } },
    ],
    ['transfer completion by the inviter', 'PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } }],
  ];
  for (const [label, method, path, init] of tries) {
    const r = await s.request(method, path, init);
    assert.equal([r.status, r.json?.message], want, `${label}: ${r.text.slice(0, 200)}`);
    assertErrorShape(r, label);
  }
  const [row] = await sql(s, 'SELECT status FROM transfers WHERE id = ?', t.id);
  assert.is.not(row.status, 'available');
  const [file] = await sql(s, 'SELECT received FROM files WHERE id = ?', t.b.id);
  assert.is(Number(file.received), CHUNK, 'no byte more was recorded');
  await s.app.services.mailQueue.flush();
  const mailed = await sql(s, "SELECT count(*) AS n FROM mail_queue WHERE to_addr LIKE '%carol@example.org%'");
  assert.is(Number(mailed[0].n), 0, 'the recipient was not told');
}

test('a withdrawn guest: its unfinished Transfer takes no more data and does not complete (409 guest_closed)', async () => {
  const g = await invite();
  const t = await guestTransfer(g.token);
  // A second Transfer with every file complete: only its completion is left.
  const whole = await guestTransfer(g.token);
  assert.is(
    (
      await sendChunks(s.request, whole.b.id, patternBytes('b', SIZE), CHUNK, { query: `?vid=${g.token}`, order: [1] })
    )[0]!.status,
    200,
  );
  assert.is((await s.request('PUT', `/file/${whole.b.id}?vid=${g.token}`, { json: { complete: true } })).status, 200);
  assert.is((await s.request('DELETE', `/guest/${g.id}`, { headers: alice })).status, 200);
  await assertStopped(t, [409, 'guest_closed']);
  const done = await s.request('PUT', `/transfer/${whole.id}?key=${whole.key}`, { json: { complete: true } });
  assert.equal([done.status, done.json?.message], [409, 'guest_closed'], done.text);
  // The inviter can still delete what the guest left (that is how its space comes back).
  assert.is((await s.request('DELETE', `/transfer/${t.id}`, { headers: alice })).status, 200);
});

test('an expired guest: the same, with 410 guest_expired', async () => {
  const g = await invite(time.clock() + 3600);
  const t = await guestTransfer(g.token);
  time.advance(3601);
  await assertStopped(t, [410, 'guest_expired']);
});

test('a guest still invited goes on by key as before', async () => {
  const g = await invite();
  const t = await guestTransfer(g.token);
  const k = `?key=${t.key}`;
  const r = await s.request('PUT', `/file/${t.b.id}/chunk/${CHUNK}${k}`, {
    body: patternBytes('b', CHUNK),
    headers: chunkHeaders,
  });
  assert.is(r.status, 200, r.text);
  assert.is((await s.request('PUT', `/file/${t.b.id}${k}`, { json: { complete: true } })).status, 200);
  const done = await s.request('PUT', `/transfer/${t.id}${k}`, { json: { complete: true } });
  assert.is(done.status, 200, done.text);
  assert.is(done.json.status, 'available');
});

test.run();
