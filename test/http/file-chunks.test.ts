import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import http from 'node:http';
import zlib from 'node:zlib';
import { suiteServer, HEADER_SP, asUser, sqlOne, TEST_STORAGE } from '../helpers/server';
import { patternBytes, sendChunks, sha256 } from '../helpers/upload-client';
import { fileWithDigest, storedBytes, storedUids } from '../helpers/stored-files';

// PUT /file/{id}/chunk/{offset} and PUT /file/{id} at the edges: bodies without a length, bodies cut short,
// bodies longer than announced, curl's default Content-Type, chunks racing a close, empty files.
const CHUNK = 64 * 1024;
const s = suiteServer(test, { ...HEADER_SP, upload_chunk_size: CHUNK });
const alice = asUser('alice');

async function create(sizes: number[]) {
  const r = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: sizes.map((size, i) => ({ name: `f${i}`, size })) }),
  });
  assert.is(r.status, 201, r.text);
  return r.json;
}
/** The file's bytes in the store, once complete (on S3 its chunks become one object at completion). */
async function stored(t: any, i = 0): Promise<Buffer> {
  const f = t.files[i];
  if (!(await fileInfo(f.id)).complete) {
    const done = await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } });
    assert.is(done.status, 200, done.text);
  }
  return storedBytes(s, t.id, f.uid);
}
const fileInfo = async (id: number) => (await s.request('GET', `/file/${id}`, { headers: alice })).json;

/**
 * A PUT whose body is written piece by piece without Content-Length (chunked transfer encoding); `between`
 * runs after the first piece. `cut` destroys the connection instead of ending the body.
 */
function streamedPut(
  urlPath: string,
  pieces: Buffer[],
  opts: { headers?: Record<string, string>; between?: () => Promise<void>; cut?: boolean } = {},
) {
  return new Promise<{ status: number; json: any } | 'cut'>((resolve, reject) => {
    const u = new URL(s.url + urlPath);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: 'PUT',
        headers: { ...alice, 'content-type': 'application/octet-stream', ...opts.headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      },
    );
    req.on('error', (e) => (opts.cut ? resolve('cut') : reject(e)));
    (async () => {
      req.write(pieces[0]);
      await new Promise((r) => setTimeout(r, 50));
      await opts.between?.();
      for (const p of pieces.slice(1)) req.write(p);
      if (opts.cut) {
        await new Promise((r) => setTimeout(r, 50));
        req.destroy();
        resolve('cut');
      } else req.end();
    })();
  });
}

test('a chunk sent as curl sends it (form Content-Type) is stored as bytes, not parsed', async () => {
  const data = patternBytes('curl', 1000);
  const t = await create([data.length]);
  const r = await s.request('PUT', `/file/${t.files[0].id}/chunk/0`, {
    headers: { ...alice, 'content-type': 'application/x-www-form-urlencoded' },
    body: data,
  });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.received, 1000);
  assert.ok((await stored(t)).equals(data));
});

test('a body without Content-Length streams to disk; past the chunk limit it is 413 and nothing is recorded', async () => {
  const data = patternBytes('stream', 2 * CHUNK);
  const t = await create([data.length]);
  const f = t.files[0];
  const ok = await streamedPut(`/file/${f.id}/chunk/0`, [data.subarray(0, 1000), data.subarray(1000, CHUNK)]);
  assert.equal(ok !== 'cut' && [ok.status, ok.json.received], [200, CHUNK]);
  const big = await streamedPut(`/file/${f.id}/chunk/${CHUNK}`, [data.subarray(CHUNK), Buffer.alloc(10)]);
  assert.equal(big !== 'cut' && [big.status, big.json.message], [413, 'storage_chunk_too_large']);
  assert.equal((await fileInfo(f.id)).ranges, [[0, CHUNK]]);
  const t2 = await create([CHUNK + 100]);
  const over = await streamedPut(`/file/${t2.files[0].id}/chunk/${CHUNK}`, [Buffer.alloc(100), Buffer.alloc(1)]);
  assert.equal(over !== 'cut' && [over.status, over.json.message], [400, 'file_chunk_out_of_bounds']);
  assert.equal((await fileInfo(t2.files[0].id)).ranges, []);
});

test('a chunk exactly upload_chunk_size long is accepted; the announced size must match the body', async () => {
  const data = patternBytes('exact', CHUNK + 5);
  const t = await create([data.length]);
  const f = t.files[0];
  const put = (offset: number, body: Buffer, headers: Record<string, string> = {}) =>
    s.request('PUT', `/file/${f.id}/chunk/${offset}`, {
      headers: { ...alice, 'content-type': 'application/octet-stream', ...headers },
      body,
    });
  assert.is((await put(0, data.subarray(0, CHUNK), { 'X-Service-Chunk-Size': String(CHUNK) })).status, 200);
  const lie = await put(CHUNK, data.subarray(CHUNK), { 'X-Service-Chunk-Size': '4' });
  assert.equal(
    [lie.status, lie.json.message, lie.json.details],
    [400, 'rest_sanity_check_failed', ['X-Service-Chunk-Size']],
  );
  const short = await streamedPut(`/file/${f.id}/chunk/${CHUNK}`, [data.subarray(CHUNK, CHUNK + 2)], {
    headers: { 'X-Service-Chunk-Size': '5' },
  });
  assert.equal(short !== 'cut' && [short.status, short.json.message], [400, 'rest_sanity_check_failed']);
  assert.is((await fileInfo(f.id)).received, CHUNK, 'neither refused chunk is recorded');
  assert.is(
    (
      await put(CHUNK, data.subarray(CHUNK), {
        'X-Service-Chunk-Size': '5',
        'X-Service-Chunk-Offset': String(CHUNK),
        'X-Service-File-Size': String(data.length),
      })
    ).status,
    200,
  );
  assert.ok((await stored(t)).equals(data));
});

test('a connection cut mid-chunk records nothing, the server goes on, and the chunk can be sent again', async () => {
  const data = patternBytes('cut', 2 * CHUNK);
  const t = await create([data.length]);
  const f = t.files[0];
  assert.is(
    await streamedPut(`/file/${f.id}/chunk/${CHUNK}`, [data.subarray(CHUNK, CHUNK + 1000)], { cut: true }),
    'cut',
  );
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await fileInfo(f.id)).ranges, []);
  for (const r of await sendChunks(s.request, f.id, data, CHUNK, { headers: alice, order: [1, 0] }))
    assert.is(r.status, 200);
  assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  assert.is((await fileWithDigest(s, f.id, alice)).sha256, sha256(data));
});

test('the same chunk sent twice at once is counted once', async () => {
  const data = patternBytes('twice', CHUNK);
  const t = await create([data.length]);
  const rs = await sendChunks(s.request, t.files[0].id, data, CHUNK, { headers: alice, order: [0, 0, 0], parallel: 3 });
  assert.equal(
    rs.map((r) => r.status),
    [200, 200, 200],
  );
  assert.is((await fileInfo(t.files[0].id)).received, CHUNK);
  assert.ok((await stored(t)).equals(data));
});

test('a chunk still arriving when its Transfer is deleted is refused and leaves no data behind', async () => {
  const data = patternBytes('race', CHUNK);
  const t = await create([data.length]);
  const r = await streamedPut(`/file/${t.files[0].id}/chunk/0`, [data.subarray(0, 1000), data.subarray(1000)], {
    between: async () => {
      assert.is((await s.request('DELETE', `/transfer/${t.id}`, { headers: alice })).json, true);
    },
  });
  assert.equal(r !== 'cut' && [r.status, r.json.message], [409, 'cannot_alter_closed_transfer']);
  assert.equal(await storedUids(s, t.id), [], 'no file data of a closed Transfer');
  const t2 = await create([CHUNK, CHUNK]);
  const r2 = await streamedPut(`/file/${t2.files[0].id}/chunk/0`, [data.subarray(0, 1000), data.subarray(1000)], {
    between: async () => {
      assert.is((await s.request('DELETE', `/file/${t2.files[0].id}`, { headers: alice })).json, true);
    },
  });
  assert.equal(r2 !== 'cut' && [r2.status, r2.json.message], [404, 'file_not_found']);
});

test('GET /file reports received, ranges and missing; completion stores SHA-256 and CRC-32 of the bytes (with no piece rows on the filesystem)', async () => {
  const data = patternBytes('info', 3 * CHUNK + 7);
  const t = await create([data.length]);
  const f = t.files[0];
  await sendChunks(s.request, f.id, data, CHUNK, { headers: alice, order: [0, 2] });
  const half = await fileInfo(f.id);
  assert.equal(
    [half.received, half.ranges, half.missing, half.complete, half.sha256, half.sha1],
    [
      2 * CHUNK,
      [
        [0, CHUNK],
        [2 * CHUNK, 3 * CHUNK],
      ],
      [
        [CHUNK, 2 * CHUNK],
        [3 * CHUNK, data.length],
      ],
      false,
      null,
      null,
    ],
  );
  const early = await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } });
  assert.equal([early.status, early.json.message], [409, 'file_incomplete']);
  await sendChunks(s.request, f.id, data, CHUNK, { headers: alice, order: [3, 1] });
  // The filesystem puts bytes at their offset and hashes the file itself: a chunk leaves its range and no piece.
  // (On S3 each chunk is a part or an object of its own, recorded as a piece to be joined at completion.)
  if (TEST_STORAGE === 'fs') {
    const pieces = (await sqlOne(s, 'SELECT COUNT(*) AS n FROM file_pieces WHERE file_id = ?', f.id)) as {
      n: number;
    };
    assert.is(Number(pieces.n), 0, 'no piece rows for chunks on the filesystem');
  }
  assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).json, true);
  const done = await fileWithDigest(s, f.id, alice);
  assert.equal([done.received, done.missing, done.complete, done.sha256], [data.length, [], true, sha256(data)]);
  const row = (await sqlOne(s, 'SELECT crc32 FROM files WHERE id = ?', f.id)) as { crc32: number };
  assert.is(row.crc32, (zlib as unknown as { crc32(b: Buffer): number }).crc32(data) >>> 0);
  assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: 'yes' } })).status, 400);
});

test('an empty file completes without any chunk; the Transfer then becomes available', async () => {
  const t = await create([0]);
  assert.is(
    (await s.request('PUT', `/file/${t.files[0].id}`, { headers: alice, json: { complete: true } })).status,
    200,
  );
  assert.is((await fileWithDigest(s, t.files[0].id, alice)).sha256, sha256(Buffer.alloc(0)));
  assert.is(
    (await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } })).json.status,
    'available',
  );
  assert.is((await stored(t)).length, 0);
});

test('chunks through the /rest.php prefix, as FileSender clients send them', async () => {
  const t = await create([10]);
  const r = await s.request('PUT', `/rest.php/file/${t.files[0].id}/chunk/0`, {
    headers: { ...alice, 'content-type': 'application/octet-stream' },
    body: Buffer.from('0123456789'),
  });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.received, 10);
});

test('bad offsets and ids: not a number, past the end, another user, unknown', async () => {
  const t = await create([100]);
  const f = t.files[0];
  const put = (p: string, headers = alice) =>
    s.request('PUT', p, { headers: { ...headers, 'content-type': 'application/octet-stream' }, body: Buffer.alloc(1) });
  assert.equal((await put(`/file/${f.id}/chunk/abc`)).json.details, ['offset']);
  assert.equal((await put(`/file/${f.id}/chunk/100`)).json.message, 'file_chunk_out_of_bounds');
  assert.is((await put(`/file/${f.id}/chunk/99`)).status, 200);
  assert.equal((await put(`/file/x/chunk/0`)).json.details, ['id']);
  assert.equal((await put(`/file/999999/chunk/0`)).json.message, 'file_not_found');
  assert.equal((await put(`/file/${f.id}/chunk/0`, asUser('bob'))).json.message, 'file_not_found');
  assert.is((await put(`/file/${f.id}/chunk/0`, {} as Record<string, string>)).status, 401);
});

test.run();
