import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encryptionFields, transferBody } from '../helpers/factories';
import crypto from 'node:crypto';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startTestServer, HEADER_SP, asUser, TestServer, tempDir, sql, sameDataAs } from '../helpers/server';
import { sha256, inAWeek } from '../helpers/upload-client';
import { movableClock } from '../helpers/session';
import { startCuttingProxy, CuttingProxy } from '../helpers/cutting-proxy';
import { S3Server, s3Client, startS3, s3Storage } from '../helpers/system/s3';
import { aeadText, generateFileIv } from '../../src/shared-crypto/format';
import { endAll } from '../helpers/end-all';

/*
 * The REST path on the S3 store, end to end, on a real S3-compatible server (Swift's s3api): two ferry nodes
 * sharing one database and one bucket, a client sending each chunk to the other node, stray chunks, completion
 * on one node and downloads (Range, ZIP) from the other, the SHA-256 computed after completion, a store that
 * goes down mid-upload, files past S3's part limit, and the purge.
 */
const MiB = 1024 * 1024;
const alice = asUser('alice');
let s3: S3Server;
let client: S3Client;
let proxy: CuttingProxy;
let a: TestServer;
let b: TestServer;
const clock = movableClock();
const prefix = `http-${crypto.randomBytes(4).toString('hex')}/`;

test.before(async () => {
  s3 = await startS3();
  client = s3Client(s3);
  // ferry reaches the store through a relay that can drop it, as a store going down would.
  proxy = await startCuttingProxy(s3.endpoint);
  const storage = s3Storage(s3, prefix, { endpoint: proxy.url });
  a = await startTestServer({ ...HEADER_SP, storage }, { clock: clock.clock });
  // Node B: the same database (the same SQLite file, or the same PostgreSQL database) and the same bucket.
  b = await startTestServer(
    {
      ...HEADER_SP,
      storage,
      ...sameDataAs(a),
    },
    { clock: clock.clock },
  );
});
test.after(() => endAll(b, a, proxy, client, s3));

async function create(files: { name: string; size: number }[]) {
  const r = await a.request('POST', '/transfer', {
    headers: alice,
    json: { files, recipients: ['r@example.org'], from: 'alice@example.org', expires: inAWeek() },
  });
  assert.is(r.status, 201, r.text);
  return r.json;
}

function putChunk(node: TestServer, fileId: number, size: number, offset: number, chunk: Buffer) {
  return node.request('PUT', `/file/${fileId}/chunk/${offset}`, {
    body: chunk,
    headers: {
      ...alice,
      'content-type': 'application/octet-stream',
      'X-Service-File-Size': String(size),
      'X-Service-Chunk-Offset': String(offset),
      'X-Service-Chunk-Size': String(chunk.length),
    },
  });
}

async function waitForSha256(fileId: number): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const f = (await b.request('GET', `/file/${fileId}`, { headers: alice })).json;
    if (f.sha256) return f.sha256;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('sha256 still null after 10 s');
}

async function keysUnder(p: string): Promise<string[]> {
  const r = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: p }));
  return (r.Contents ?? []).map((o) => o.Key!);
}

test('chunks alternate between two nodes, in any order, aligned and stray; complete on one, download from the other with Range and as ZIP', async () => {
  const big = crypto.randomBytes(12 * MiB + 333);
  const small = crypto.randomBytes(70_000);
  const t = await create([
    { name: 'big.bin', size: big.length },
    { name: 'small.txt', size: small.length },
  ]);
  const [fb, fs2] = t.files;
  // Aligned 5 MiB chunks for the first 10 MiB (parts 1 and 2), sent out of order to alternating nodes; the tail
  // in two odd pieces (staged, folded in at completion), one of them sent twice.
  const sends: [TestServer, number, number][] = [
    [b, 5 * MiB, 10 * MiB],
    [a, 11 * MiB, big.length],
    [b, 0, 5 * MiB],
    [a, 10 * MiB, 11 * MiB],
    [b, 11 * MiB, big.length],
  ];
  for (const [node, start, end] of sends)
    assert.is((await putChunk(node, fb.id, big.length, start, big.subarray(start, end))).status, 200);
  const mid = (await a.request('GET', `/file/${fb.id}`, { headers: alice })).json;
  assert.is(mid.received, big.length);
  assert.equal(mid.ranges, [[0, big.length]]);
  assert.is((await putChunk(b, fs2.id, small.length, 0, small)).status, 200);

  assert.is((await b.request('PUT', `/file/${fb.id}`, { headers: alice, json: { complete: true } })).status, 200);
  const completed = await a.request('PUT', `/file/${fs2.id}`, { headers: alice, json: { complete: true } });
  assert.is(completed.status, 200);
  assert.is(
    completed.json.sha256 ?? null,
    null,
    'SHA-256 not computed yet at completion on S3: the answer never waits for it',
  );
  assert.is(await waitForSha256(fb.id), sha256(big), 'computed in the background by reading the object back');
  assert.is(await waitForSha256(fs2.id), sha256(small));
  const done = await a.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  const token = done.json.recipients[0].token;
  assert.equal(
    (await keysUnder(`${prefix}${t.id}/`)).sort(),
    [`${prefix}${t.id}/${fb.uid}`, `${prefix}${t.id}/${fs2.uid}`].sort(),
    'one object per file, staged pieces gone',
  );

  // Node B serves what node A completed (and the other way round).
  const whole = await fetch(`${b.url}/download?token=${token}&files_ids=${fb.id}`);
  assert.is(whole.status, 200);
  assert.is(sha256(Buffer.from(await whole.arrayBuffer())), sha256(big));
  const ranged = await fetch(`${b.url}/download?token=${token}&files_ids=${fb.id}`, {
    headers: { Range: `bytes=${5 * MiB - 10}-${5 * MiB + 9}` },
  });
  assert.is(ranged.status, 206);
  assert.ok(Buffer.from(await ranged.arrayBuffer()).equals(big.subarray(5 * MiB - 10, 5 * MiB + 10)));
  const suffix = await fetch(`${a.url}/download?token=${token}&files_ids=${fs2.id}`, {
    headers: { Range: 'bytes=-100' },
  });
  assert.ok(Buffer.from(await suffix.arrayBuffer()).equals(small.subarray(-100)));
  const etag = whole.headers.get('etag')!;
  const ifRange = await fetch(`${b.url}/download?token=${token}&files_ids=${fb.id}`, {
    headers: { Range: 'bytes=0-9', 'If-Range': etag },
  });
  assert.is(ifRange.status, 206);

  // The ZIP, laid out from the metadata (CRC-32s combined from the chunks'), checked by Python's zipfile.
  const zipRes = await fetch(`${b.url}/download?token=${token}&archive_format=zip`);
  assert.is(zipRes.status, 200);
  const zip = Buffer.from(await zipRes.arrayBuffer());
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'a.zip'), zip);
  const py = spawnSync(
    'python3',
    [
      '-c',
      'import zipfile,sys,hashlib\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor n in sorted(z.namelist()): print(n, hashlib.sha256(z.read(n)).hexdigest())',
      path.join(dir, 'a.zip'),
    ],
    { encoding: 'utf8' },
  );
  fs.rmSync(dir, { recursive: true, force: true });
  assert.is(py.status, 0, py.stderr);
  assert.is(py.stdout, `big.bin ${sha256(big)}\nsmall.txt ${sha256(small)}\n`);
  // A range of the archive that spans the end of one entry and the start of the next.
  const from = zip.length - small.length - 500;
  const part = await fetch(`${a.url}/download?token=${token}&archive_format=zip`, {
    headers: { Range: `bytes=${from}-${from + 99}` },
  });
  assert.is(part.status, 206);
  assert.ok(Buffer.from(await part.arrayBuffer()).equals(zip.subarray(from, from + 100)));
});

test('an encrypted file: IV ‖ ciphertext ‖ tag chunks at i·(S+32) are parts of the upload; the ciphertext downloads byte-identical', async () => {
  // The server never decrypts: random bytes of each chunk's stored length stand for the ciphertext here.
  const S = 5 * MiB;
  const size = 11 * MiB;
  const iv = generateFileIv();
  const created = await a.request('POST', '/transfer', {
    headers: alice,
    json: {
      files: [{ name: 'secret.bin', size, iv, aead: btoa(aeadText(size, S, iv)) }],
      recipients: ['r@example.org'],
      from: 'alice@example.org',
      expires: inAWeek(),
      ...encryptionFields(),
    },
  });
  assert.is(created.status, 201, created.text);
  const f = created.json.files[0];
  const chunks = [0, 1, 2].map((c) => crypto.randomBytes(Math.min(S, size - c * S) + 32));
  for (const c of [2, 0, 1]) {
    const r = await (c % 2 ? a : b).request('PUT', `/file/${f.id}/chunk/${c * S}`, {
      headers: {
        ...alice,
        'content-type': 'application/octet-stream',
        'X-Filesender-Chunk-Size': String(Math.min(S, size - c * S)),
        'X-Filesender-File-Size': String(size),
      },
      body: chunks[c],
    });
    assert.is(r.status, 200, r.text);
  }
  const pieces = await sql(a, 'SELECT receipt FROM file_pieces WHERE file_id = ? ORDER BY start_at', f.id);
  assert.equal(
    pieces.map((p) => String(p.receipt).slice(0, 4)),
    ['p:1:', 'p:2:', 'p:3:'],
    'each chunk is a part of the upload',
  );
  assert.is((await b.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  const stored = Buffer.concat(chunks);
  assert.is(await waitForSha256(f.id), sha256(stored), "the ciphertext's SHA-256");
  const done = await a.request('PUT', `/transfer/${created.json.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  const r = await fetch(`${b.url}/download?token=${done.json.recipients[0].token}`);
  assert.is(r.status, 200);
  assert.ok(Buffer.from(await r.arrayBuffer()).equals(stored));
});

test('two nodes completing the same file at once both answer 200, and the object is the file', async () => {
  const data = crypto.randomBytes(11 * MiB + 5);
  const t = await create([{ name: 'twice.bin', size: data.length }]);
  const f = t.files[0];
  // Stray pieces, so that completion copies and streams parts (and drops the staged objects after).
  for (const [start, end] of [
    [0, 3 * MiB],
    [3 * MiB, 8 * MiB],
    [8 * MiB, data.length],
  ])
    assert.is((await putChunk(a, f.id, data.length, start, data.subarray(start, end))).status, 200);
  const [ra, rb] = await Promise.all(
    [a, b].map((node) => node.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })),
  );
  assert.equal([ra.status, rb.status], [200, 200], `${ra.text} ${rb.text}`);
  assert.is(await waitForSha256(f.id), sha256(data));
  assert.equal(await keysUnder(`${prefix}${t.id}/`), [`${prefix}${t.id}/${f.uid}`]);
});

test('the store down mid-upload: 503 storage_unavailable with Retry-After, nothing acknowledged lost; resent after, the file completes right', async () => {
  const data = crypto.randomBytes(11 * MiB);
  const t = await create([{ name: 'd.bin', size: data.length }]);
  const f = t.files[0];
  assert.is((await putChunk(a, f.id, data.length, 0, data.subarray(0, 5 * MiB))).status, 200);
  proxy.cut(4000);
  const refused = await putChunk(b, f.id, data.length, 5 * MiB, data.subarray(5 * MiB, 10 * MiB));
  assert.is(refused.status, 503, refused.text);
  assert.is(refused.json.message, 'storage_unavailable');
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  const ready = await a.request('GET', '/readyz');
  assert.is(ready.status, 503, 'readiness names the store');
  const mid = (await a.request('GET', `/file/${f.id}`, { headers: alice })).json;
  assert.equal(mid.ranges, [[0, 5 * MiB]], 'the acknowledged chunk stays recorded, the refused one is not');
  // The store back (the relay takes connections again after its 4 s): ready again, the chunk is sent again.
  for (let i = 0; i < 100 && (await a.request('GET', '/readyz')).status !== 200; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.is((await putChunk(b, f.id, data.length, 5 * MiB, data.subarray(5 * MiB, 10 * MiB))).status, 200);
  assert.is((await putChunk(a, f.id, data.length, 10 * MiB, data.subarray(10 * MiB))).status, 200);
  assert.is((await a.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  assert.is(await waitForSha256(f.id), sha256(data));
});

test('a file past 10,000 parts of the chunk size is accepted (kept in segments): max_transfer_size is the limit', async () => {
  const past = await a.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'huge.iso', size: 10_000 * 5 * MiB + 1 }] }),
  });
  assert.is(past.status, 201, past.text);
  const max = a.app.config.max_transfer_size;
  const fits = await a.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'fits.iso', size: max }] }),
  });
  assert.is(fits.status, 201, fits.text);
  const over = await a.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'over.iso', size: max + 1 }] }),
  });
  assert.is(over.status, 400);
  assert.is(over.json.message, 'transfer_maximum_size_exceeded');
});

test('purge after expiry, killed halfway, finishes on the next pass: objects deleted, the unfinished multipart upload aborted, rows dropped', async () => {
  const data = crypto.randomBytes(11 * MiB);
  const t = await create([{ name: 'left.bin', size: data.length }]);
  const f = t.files[0];
  assert.is((await putChunk(a, f.id, data.length, 0, data.subarray(0, 5 * MiB))).status, 200);
  assert.is((await putChunk(b, f.id, data.length, 5 * MiB, data.subarray(5 * MiB, 10 * MiB))).status, 200);
  const key = `${prefix}${t.id}/${f.uid}`;
  const uploads = async () =>
    ((await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket, Prefix: key }))).Uploads ?? []).filter(
      (u) => u.Key === key,
    );
  assert.is((await uploads()).length, 1, 'the upload every node writes into');
  assert.equal(await keysUnder(key), [], 'parts only: no object lists them, the records alone know the upload');
  clock.advance(400 * 86400);
  // A pass that is killed halfway: the Transfer closed in the database (expiry changes the records first),
  // nothing done in the store yet ...
  await sql(
    a,
    `UPDATE transfers SET status = 'closed', closed = ?, closed_reason = 'expired' WHERE id = ?`,
    clock.clock(),
    t.id,
  );
  assert.is((await uploads()).length, 1, 'nothing aborted yet');
  // ... is finished by the next one, although the Transfer no longer counts as expiring.
  await a.app.services.purge.run();
  assert.equal(await keysUnder(`${prefix}${t.id}/`), []);
  assert.equal(await uploads(), [], 'the multipart upload is aborted');
  const rows = await sql(a, 'SELECT store_upload FROM files WHERE id = ?', f.id);
  assert.ok(rows.length === 0 || rows[0].store_upload === null);
  const again = await b.app.services.purge.run();
  assert.is(again.orphan_files_deleted, 0);
});

test.run();
