import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { startBinary, BinaryServer } from '../helpers/binary';
import { asUser, HEADER_SP, request } from '../helpers/server';

const GiB = 1024 ** 3;
const CHUNK = 5 * 1024 * 1024;
const headers = asUser('alice');
const config = HEADER_SP;

/** Chunk i of the test file: an AES-CTR keystream, fast and reproducible without keeping 1 GiB in memory. */
function chunkData(i: number, size: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(i, 12);
  return crypto.createCipheriv('aes-128-ctr', Buffer.alloc(16, 7), iv).update(Buffer.alloc(size));
}

/** Sends the chunks with `inFlight` requests at a time; `acknowledged` collects each chunk answered 200. */
async function putChunks(
  url: string,
  fileId: number,
  total: number,
  indices: number[],
  inFlight: number,
  acknowledged: number[] = [],
) {
  const queue = [...indices];
  const worker = async () => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
      const size = Math.min(CHUNK, total - i * CHUNK);
      const r = await request(url, 'PUT', `/file/${fileId}/chunk/${i * CHUNK}`, {
        body: chunkData(i, size),
        headers: {
          ...headers,
          'content-type': 'application/octet-stream',
          'X-Service-File-Size': String(total),
          'X-Service-Chunk-Size': String(size),
        },
      });
      assert.is(r.status, 200, r.text);
      acknowledged.push(i);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

test('1 GiB in 5 MiB chunks, 4 in flight; SIGKILL halfway; restart; resume from received; byte-identical', async () => {
  const total = GiB;
  const chunks = Math.ceil(total / CHUNK);
  let s: BinaryServer = await startBinary({ config });
  try {
    const t = await request(s.url, 'POST', '/transfer', {
      headers,
      json: {
        files: [{ name: 'big.bin', size: total }],
        recipients: ['r@example.org'],
        from: 'alice@example.org',
        expires: Math.floor(Date.now() / 1000) + 86400,
      },
    });
    assert.is(t.status, 201, t.text);
    const fileId = t.json.files[0].id;
    const uid = t.json.files[0].uid;
    // Send about half, with 4 requests in flight, then kill the server without warning while chunks are in flight.
    const acknowledged: number[] = [];
    const sending = putChunks(s.url, fileId, total, [...Array(chunks).keys()], 4, acknowledged).catch(() => 'cut');
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const f = await request(s.url, 'GET', `/file/${fileId}`, { headers });
      if (f.json.received >= total / 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await s.kill9();
    assert.is(await sending, 'cut');
    s = await startBinary({ dir: s.dir });
    const f = (await request(s.url, 'GET', `/file/${fileId}`, { headers })).json;
    assert.ok(f.received >= total / 2 && f.received < total, `received ${f.received}`);
    // Resume: only the chunks not fully inside a received range.
    const have = (i: number) =>
      f.ranges.some(([a, b]: [number, number]) => a <= i * CHUNK && Math.min(total, (i + 1) * CHUNK) <= b);
    // Nothing acknowledged is lost: every chunk answered 200 before the kill is recorded after the restart.
    assert.ok(acknowledged.length > 0);
    assert.equal(
      acknowledged.filter((i) => !have(i)),
      [],
    );
    const missing = [...Array(chunks).keys()].filter((i) => !have(i));
    assert.ok(missing.length < chunks * 0.6, `${missing.length} of ${chunks} chunks to resend`);
    await putChunks(s.url, fileId, total, missing, 4);
    assert.is((await request(s.url, 'PUT', `/file/${fileId}`, { headers, json: { complete: true } })).status, 200);
    const done = await request(s.url, 'GET', `/file/${fileId}`, { headers });
    const expected = crypto.createHash('sha256');
    let crc = 0;
    for (let i = 0; i < chunks; i++) {
      const c = chunkData(i, Math.min(CHUNK, total - i * CHUNK));
      expected.update(c);
      crc = (zlib as unknown as { crc32(b: Buffer, v: number): number }).crc32(c, crc);
    }
    const sha = expected.digest('hex');
    assert.is(done.json.sha256, sha);
    const stored = crypto.createHash('sha256');
    for await (const c of fs.createReadStream(path.join(s.dir, 'data', 'files', String(t.json.id), uid), {
      highWaterMark: 4 * 1024 * 1024,
    }))
      stored.update(c as Buffer);
    assert.is(stored.digest('hex'), sha);
  } finally {
    await s.stop();
    fs.rmSync(s.dir, { recursive: true, force: true });
  }
});

test.run();
