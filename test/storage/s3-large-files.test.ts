import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import crypto from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startTestServer, HEADER_SP, asUser, TestServer, sql, sameDataAs } from '../helpers/server';
import { sha256, inAWeek } from '../helpers/upload-client';
import { movableClock } from '../helpers/session';
import { startTestSink, TestSink } from '../helpers/mail';
import { S3Server, s3Client, startS3, s3Storage } from '../helpers/system/s3';
import { until } from '../helpers/until';
import { endAll } from '../helpers/end-all';

/*
 * Files of more parts than one S3 multipart upload holds, through the REST interface on a real S3-compatible
 * server (Swift's s3api), with the store's part limit lowered to 3 (`storage.max_parts`) so that a file of a few
 * 5 MiB chunks takes the path of a file past S3's 10,000 parts: kept in segments, completed in the background
 * (the answers do not wait), made available and mailed when the last file is assembled, by whichever node holds
 * the claim; a claim left by a node that died is taken over once it lapses.
 */
const MiB = 1024 * 1024;
const CHUNK = 5 * MiB;
const alice = asUser('alice');
let s3: S3Server;
let client: S3Client;
let sink: TestSink;
let a: TestServer;
let b: TestServer;
const clock = movableClock();
const prefix = `large-${crypto.randomBytes(4).toString('hex')}/`;

test.before(async () => {
  s3 = await startS3();
  client = s3Client(s3);
  sink = await startTestSink();
  const storage = s3Storage(s3, prefix, { max_parts: 3 });
  const mail = { transport: sink.url, from: 'ferry@files.example' };
  a = await startTestServer({ ...HEADER_SP, storage, mail }, { clock: clock.clock });
  b = await startTestServer(
    {
      ...HEADER_SP,
      storage,
      mail,
      ...sameDataAs(a),
    },
    { clock: clock.clock },
  );
});
test.after(() => endAll(b, a, sink, client, s3));

async function create(sizes: number[]) {
  const files = sizes.map((size, i) => ({ name: `run-${i}.bin`, size }));
  const r = await a.request('POST', '/transfer', {
    headers: alice,
    json: {
      files,
      recipients: ['r@example.org'],
      from: 'alice@example.org',
      expires: inAWeek(),
      subject: 'instrument dump',
    },
  });
  assert.is(r.status, 201, r.text);
  return r.json;
}

async function sendAll(fileId: number, data: Buffer, upTo = data.length) {
  for (let offset = 0, i = 0; offset < upTo; offset += CHUNK, i++) {
    const chunk = data.subarray(offset, offset + CHUNK);
    const node = i % 2 ? b : a;
    const r = await node.request('PUT', `/file/${fileId}/chunk/${offset}`, {
      body: chunk,
      headers: {
        ...alice,
        'content-type': 'application/octet-stream',
        'X-Service-File-Size': String(data.length),
        'X-Service-Chunk-Offset': String(offset),
        'X-Service-Chunk-Size': String(chunk.length),
      },
    });
    assert.is(r.status, 200, r.text);
  }
}

async function keysUnder(p: string): Promise<string[]> {
  const r = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: p }));
  return (r.Contents ?? []).map((o) => o.Key!).sort();
}

const status = async (id: number) => (await b.request('GET', `/transfer/${id}`, { headers: alice })).json.status;

test('a file past the part limit is accepted up to max_transfer_size, whatever the chunk size', async () => {
  // 3 parts of 5 MiB per upload → 15 MiB segments, at most 3 of them on this store: 45 MiB; S3's own 10,000
  // would give 10,000 segments of 48.8 GiB. The default max_transfer_size (100 GiB) is what bounds a file there.
  const fits = await a.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'fits.iso', size: 45 * MiB }] }),
  });
  assert.is(fits.status, 201, fits.text);
  const over = await a.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'over.iso', size: 45 * MiB + 1 }] }),
  });
  assert.is(over.status, 400);
  assert.is(over.json.message, 'transfer_maximum_size_exceeded');
  assert.equal(over.json.details, ['files[0].size']);
});

test('completion of a file in segments answers at once; the Transfer becomes available, and is mailed once, when the last file is assembled', async () => {
  const big = crypto.randomBytes(8 * CHUNK + 123_456);
  const other = crypto.randomBytes(4 * CHUNK + 7);
  const t = await create([big.length, other.length]);
  const [fb, fo] = t.files;
  await sendAll(fb.id, big);
  await sendAll(fo.id, other);

  const done = await a.request('PUT', `/file/${fb.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  // Completing a file of many parts can outlast a client's timeout: it is left to the background.
  const again = await b.request('PUT', `/file/${fb.id}`, { headers: alice, json: { complete: true } });
  assert.is(again.status, 200, 'asking again (another node, a retrying client) is fine');
  assert.is((await b.request('PUT', `/file/${fo.id}`, { headers: alice, json: { complete: true } })).status, 200);
  const asked = await b.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(asked.status, 200, asked.text);
  assert.ok(['uploading', 'available'].includes(asked.json.status), asked.json.status);

  await until(
    'the Transfer available once its files are assembled',
    async () => (await status(t.id)) === 'available',
    30_000,
  );
  const mails = await sink.waitFor(1);
  assert.is(
    mails.filter(
      (m) => (m.text ?? '').includes(t.recipients[0].token) || (m.html || '').includes(t.recipients[0].token),
    ).length,
    1,
    'the recipient is mailed once',
  );
  const files = (await b.request('GET', `/transfer/${t.id}`, { headers: alice })).json.files;
  assert.ok(files.every((f: { complete?: boolean }) => f.complete !== false));

  // No whole object: the segments are the file, and downloads read across them; no staged piece is left.
  const keys = await keysUnder(`${prefix}${t.id}/`);
  assert.equal(
    keys.filter((k) => k.includes(fb.uid)),
    [0, 1, 2].map((j) => `${prefix}${t.id}/${fb.uid}.seg/${j}`),
  );
  const token = t.recipients[0].token;
  const whole = await fetch(`${a.url}/download?token=${token}&files_ids=${fb.id}`);
  assert.is(whole.status, 200);
  assert.is(sha256(Buffer.from(await whole.arrayBuffer())), sha256(big));
  const across = await fetch(`${b.url}/download?token=${token}&files_ids=${fb.id}`, {
    headers: { Range: `bytes=${3 * CHUNK - 10}-${6 * CHUNK + 9}` },
  });
  assert.is(across.status, 206);
  assert.ok(
    Buffer.from(await across.arrayBuffer()).equals(big.subarray(3 * CHUNK - 10, 6 * CHUNK + 10)),
    'a range across two segment boundaries',
  );
  const zip = await fetch(`${b.url}/download?token=${token}&archive_format=zip`);
  assert.is(zip.status, 200);
  await zip.arrayBuffer();
  // The recorded SHA-256 is the bytes served.
  await until(
    'SHA-256 computed',
    async () => Boolean((await a.request('GET', `/file/${fb.id}`, { headers: alice })).json.sha256),
    30_000,
  );
  assert.is((await a.request('GET', `/file/${fb.id}`, { headers: alice })).json.sha256, sha256(big));
});

test('a completion left by a node that died (its claim in the database) is finished by another once the claim lapses', async () => {
  const data = crypto.randomBytes(7 * CHUNK + 99);
  const t = await create([data.length]);
  const f = t.files[0];
  await sendAll(f.id, data);
  // As a node that took the work and died would leave it: asked for, claimed for 30 s, nothing done in the store.
  const by = JSON.stringify({
    type: 'user',
    id: 'alice',
    emails: ['alice@example.org'],
    ip: '127.0.0.1',
    fromMustBeOwn: false,
    guestId: null,
  });
  await sql(a, 'UPDATE files SET assembly_by = ?, assembly_claim = ? WHERE id = ?', by, clock.clock() + 30, f.id);
  await sql(a, 'UPDATE transfers SET complete_by = ? WHERE id = ?', by, t.id);
  assert.is(await status(t.id), 'uploading');
  clock.advance(31);
  await until('taken over and made available', async () => (await status(t.id)) === 'available', 30_000);
  const whole = await fetch(`${b.url}/download?token=${t.recipients[0].token}&files_ids=${f.id}`);
  assert.is(sha256(Buffer.from(await whole.arrayBuffer())), sha256(data));
});

test('a Transfer whose files are not all in is still refused', async () => {
  const data = crypto.randomBytes(7 * CHUNK);
  const t = await create([data.length]);
  await sendAll(t.files[0].id, data, 5 * CHUNK);
  const r = await a.request('PUT', `/file/${t.files[0].id}`, { headers: alice, json: { complete: true } });
  assert.is(r.status, 409);
  assert.is(r.json.message, 'file_incomplete');
  const tr = await a.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(tr.status, 409);
  assert.is(tr.json.message, 'transfer_files_incomplete');
});

test.run();
