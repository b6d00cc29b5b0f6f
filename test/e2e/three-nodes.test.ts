import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startBinary, runFerry, BinaryServer } from '../helpers/binary';
import { tempDir, asUser } from '../helpers/server';
import { startTestSink, addressOf, TestSink } from '../helpers/mail';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { RoundRobinClient } from '../helpers/round-robin-client';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { callNode, clusterNodeConfig, queryPostgres } from '../helpers/node-calls';
import { s3Env, s3NodeStorage, startS3, s3Client, S3Server } from '../helpers/system/s3';

// Three `dist/ferry serve` nodes on one PostgreSQL and one S3 server (Swift with s3api, test/helpers/system/
// s3.ts), as behind a load balancer without stickiness; no node shares a directory with another. A client sends
// each chunk to the next node in turn; node 2 is SIGKILLed halfway through the upload, which goes on through
// nodes 1 and 3. Then mail, downloads with Range from node 3, and a purge run as cron would run it, in a
// process of its own.

const MiB = 1024 * 1024;
const DAY = 86400;
const CHUNK = 5 * MiB;
/** 16 chunks, the last one short: at least 60 MiB, spread over the three nodes. */
const SIZE = 15 * CHUNK + 2 * MiB + 12_345;
const IN_FLIGHT = 4;
const alice = asUser('alice');
const RECIPIENTS = ['r1@example.org', 'r2@example.org'];

let dir: string;
let sink: TestSink;
let databaseUrl: string;
let s3: S3Server;
let bucket: S3Client;
const PREFIX = 'ferry-nodes/';
const nodes: BinaryServer[] = [];

/** What the bucket holds under ferry's prefix: object keys, and the keys of unfinished multipart uploads. */
async function stored(): Promise<{ objects: string[]; uploads: string[] }> {
  const objects = await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: PREFIX }));
  const uploads = await bucket.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket, Prefix: PREFIX }));
  assert.not.ok(objects.IsTruncated || uploads.IsTruncated, 'a test bucket lists in one page');
  return { objects: (objects.Contents ?? []).map((o) => o.Key!), uploads: (uploads.Uploads ?? []).map((u) => u.Key!) };
}

/** Whether any key names one of the files (keys are made from the transfer id and the file's random uid). */
const naming = (keys: string[], uids: string[]) => keys.filter((k) => uids.some((u) => k.includes(u)));

const query = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  queryPostgres<T>(databaseUrl, text, params);

const call = (node: BinaryServer, method: string, p: string, json?: unknown) => callNode(node, alice, method, p, json);

async function get(node: BinaryServer, p: string, headers: Record<string, string> = {}) {
  const r = await fetch(`${node.url}${p}`, { headers, signal: AbortSignal.timeout(60_000) });
  return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
}

/** The chunk at offset 0 of a file of `size` bytes. */
async function putFirstChunk(node: BinaryServer, fileId: number, size: number, bytes: Buffer) {
  const r = await fetch(`${node.url}/file/${fileId}/chunk/0`, {
    method: 'PUT',
    headers: {
      ...alice,
      'content-type': 'application/octet-stream',
      'X-Service-File-Size': String(size),
      'X-Service-Chunk-Offset': '0',
      'X-Service-Chunk-Size': String(bytes.length),
    },
    body: bytes as unknown as BodyInit,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: r.status, text: await r.text() };
}

/** Every chunk index whose bytes lie wholly inside one of the ranges. */
function chunksIn(ranges: [number, number][], size = SIZE): number[] {
  const count = Math.ceil(size / CHUNK);
  return [...Array(count).keys()].filter((i) =>
    ranges.some(([a, b]) => a <= i * CHUNK && Math.min(size, (i + 1) * CHUNK) <= b),
  );
}

function overlaps(ranges: [number, number][], chunk: number): boolean {
  const [s, e] = [chunk * CHUNK, Math.min(SIZE, (chunk + 1) * CHUNK)];
  return ranges.some(([a, b]) => a < e && s < b);
}

test.before(async () => {
  dir = tempDir('ferry-3nodes-');
  [sink, databaseUrl, s3] = await Promise.all([startTestSink(), freshPostgresDatabase('ferry_nodes'), startS3()]);
  bucket = s3Client(s3);
  // Behind one load balancer the nodes share one public address: links in mail name it, not a node's port.
  const config = clusterNodeConfig(databaseUrl, sink.url, s3NodeStorage(s3, PREFIX));
  // One at a time: the first creates the schema, the others start on it. The S3 keys come from the environment,
  // as an operator gives them (not in the config file).
  for (const name of ['node1', 'node2', 'node3']) {
    fs.mkdirSync(path.join(dir, name));
    nodes.push(await startBinary({ dir: path.join(dir, name), config, env: s3Env(s3), timeoutMs: 60_000 }));
  }
});

test.after(async () => {
  for (const n of nodes) await n.stop();
  await sink?.close();
  bucket?.destroy();
  await s3?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('three nodes: one upload across them, node 2 killed halfway, mail once, downloads with Range from node 3, purge from cron', async () => {
  const [n1, n2, n3] = nodes;
  const big = patternBytes('three-nodes big', SIZE);
  const small = patternBytes('three-nodes small', 3 * MiB + 7);
  const expires = Math.floor(Date.now() / 1000) + 2 * DAY;
  const created = await call(n1, 'POST', '/transfer', {
    files: [
      { name: 'big.bin', size: big.length },
      { name: 'small.bin', size: small.length },
    ],
    recipients: RECIPIENTS,
    from: 'alice@example.org',
    subject: 'Three nodes',
    expires,
  });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  const [bigFile, smallFile] = t.files;

  // Halfway, one request to node 2 sends half its chunk and stops there: node 2 dies with it (and with whatever
  // else it was receiving) in flight. The load balancer sends nothing more to node 2 from then on.
  let holding: (() => void) | undefined;
  const held = new Promise<void>((resolve) => (holding = resolve));
  let release: () => void = () => {};
  const afterKill = new Promise<void>((resolve) => (release = resolve));
  let armed = true;
  const client: RoundRobinClient = new RoundRobinClient({
    nodes: nodes.map((n) => n.url),
    fileId: bigFile.id,
    data: big,
    chunkSize: CHUNK,
    inFlight: IN_FLIGHT,
    headers: alice,
    bodyFor(_chunk, node, bytes, acknowledged) {
      if (!armed || node !== 1 || acknowledged < Math.ceil(SIZE / CHUNK) / 2) return undefined;
      armed = false;
      let first = true;
      return new ReadableStream<Uint8Array>({
        async pull(ctl) {
          if (first) {
            first = false;
            ctl.enqueue(bytes.subarray(0, bytes.length / 2));
            return;
          }
          holding!();
          await afterKill;
          try {
            ctl.error(new Error('the node died'));
          } catch {
            // The request was already torn down by the dead connection.
          }
        },
      });
    },
    beforeRetry: () => afterKill,
  });
  const uploading = client.upload();
  await Promise.race([held, uploading.then(() => assert.unreachable('the upload ended before node 2 was killed'))]);
  // The half chunk has reached node 2 (loopback: well within this pause).
  await new Promise((r) => setTimeout(r, 300));
  client.markDead(1);
  const killedAt = Date.now();
  const ackedBeforeKill = client.acknowledged();
  await n2.kill9();
  const midway: { received: number; ranges: [number, number][] } = (await call(n1, 'GET', `/file/${bigFile.id}`)).json;
  release();
  await uploading;

  // Nothing was sent again but the chunks in flight to node 2 when it died.
  const failed = client.attempts.filter((a) => a.status === undefined);
  assert.ok(failed.length >= 1 && failed.length <= IN_FLIGHT, `${failed.length} failed requests`);
  for (const f of failed) {
    assert.is(f.node, 1, `a request to node ${f.node + 1} failed: ${f.error}`);
    assert.ok(f.startedAt <= killedAt, 'only requests in flight at the kill failed');
  }
  const count = Math.ceil(SIZE / CHUNK);
  const sends = (c: number) => client.attempts.filter((a) => a.chunk === c);
  for (let c = 0; c < count; c++) {
    const ok = sends(c).filter((a) => a.status === 200);
    assert.is(ok.length, 1, `chunk ${c} acknowledged once`);
    const expected = failed.filter((f) => f.chunk === c).length + 1;
    assert.is(sends(c).length, expected, `chunk ${c} sent ${sends(c).length} times`);
  }
  for (const f of failed) assert.ok(sends(f.chunk).find((a) => a.status === 200)!.node !== 1, 'resent to a live node');
  assert.ok(
    client.attempts.some((a) => a.node === 1 && a.status === 200),
    'node 2 took chunks before it died',
  );
  // What the nodes said right after the kill: every chunk acknowledged before it, none of the ones cut off.
  for (const c of ackedBeforeKill)
    assert.ok(chunksIn(midway.ranges).includes(c), `chunk ${c} acknowledged before the kill is recorded`);
  for (const f of failed)
    assert.not.ok(overlaps(midway.ranges, f.chunk), `chunk ${f.chunk}, cut off on node 2, is not recorded`);
  assert.is(
    midway.received,
    midway.ranges.reduce((n, [a, b]) => n + b - a, 0),
  );
  assert.ok(midway.received < SIZE);
  const whole = (await call(n3, 'GET', `/file/${bigFile.id}`)).json;
  assert.is(whole.received, SIZE);
  assert.equal(whole.ranges, [[0, SIZE]]);

  // The small file in one chunk through node 3; completion on nodes 3 and 1.
  const put = await putFirstChunk(n3, smallFile.id, small.length, small);
  assert.is(put.status, 200, put.text);
  assert.is((await call(n3, 'PUT', `/file/${bigFile.id}`, { complete: true })).status, 200);
  assert.is((await call(n1, 'PUT', `/file/${smallFile.id}`, { complete: true })).status, 200);
  const done = await call(n1, 'PUT', `/transfer/${t.id}`, { complete: true });
  assert.is(done.status, 200, done.text);
  assert.is(done.json.status, 'available');
  // The SHA-256 cannot be combined from chunks hashed on different nodes: it comes once a node has read the
  // whole file back, in the background.
  const hashDeadline = Date.now() + 60_000;
  for (
    let f = (await call(n3, 'GET', `/file/${bigFile.id}`)).json;
    f.sha256 !== sha256(big);
    f = (await call(n3, 'GET', `/file/${bigFile.id}`)).json
  ) {
    assert.is(f.sha256, null, 'no SHA-256 but the right one');
    assert.ok(Date.now() < hashDeadline, 'the SHA-256 is there within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }

  // Exactly one mail per recipient: wait (bounded) for one each, then a while longer for a second that must not come.
  const forRecipients = async () => (await sink.messages()).filter((m) => RECIPIENTS.includes(addressOf(m.to)));
  const deadline = Date.now() + 20_000;
  while (new Set((await forRecipients()).map((m) => addressOf(m.to))).size < RECIPIENTS.length) {
    assert.ok(Date.now() < deadline, 'every recipient is mailed within 20 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 2000));
  const mails = await forRecipients();
  assert.equal(mails.map((m) => addressOf(m.to)).sort(), RECIPIENTS);
  const token = /[?&]token=([0-9a-f]+)/.exec(String(mails[0].text))?.[1];
  assert.ok(token, 'the mail carries the download link');

  // Downloads from node 3: the big file whole and in ranges (a suffix, a middle crossing chunks written by
  // different nodes), then both files as one ZIP, whole and in ranges, the same bytes as node 1 lays out.
  const one = `/download?token=${token}&files_ids=${bigFile.id}`;
  const full = await get(n3, one);
  assert.is(full.status, 200);
  assert.is(sha256(full.body), sha256(big));
  const ranges: [string, number, number][] = [
    ['bytes=-3000001', SIZE - 3_000_001, SIZE],
    [`bytes=${CHUNK - 7}-${8 * CHUNK + 3}`, CHUNK - 7, 8 * CHUNK + 4],
  ];
  for (const [range, from, to] of ranges) {
    const r = await get(n3, one, { Range: range });
    assert.is(r.status, 206, range);
    assert.is(r.headers.get('content-range'), `bytes ${from}-${to - 1}/${SIZE}`);
    assert.is(sha256(r.body), sha256(big.subarray(from, to)), range);
  }
  const zip = await get(n3, `/download?token=${token}&archive_format=zip`);
  assert.is(zip.status, 200);
  assert.is(zip.headers.get('content-type'), 'application/zip');
  const zipFile = path.join(dir, 'all.zip');
  fs.writeFileSync(zipFile, zip.body);
  const listed = spawnSync(
    'python3',
    [
      '-c',
      'import zipfile,sys,json,hashlib\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(json.dumps({i.filename: hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist()}))',
      zipFile,
    ],
    { encoding: 'utf8' },
  );
  assert.is(listed.status, 0, listed.stderr);
  assert.equal(JSON.parse(listed.stdout), { 'big.bin': sha256(big), 'small.bin': sha256(small) });
  assert.is(
    sha256((await get(n1, `/download?token=${token}&archive_format=zip`)).body),
    sha256(zip.body),
    'node 1 serves the same archive',
  );
  for (const [range, from, to] of [
    ['bytes=-1000000', zip.body.length - 1_000_000, zip.body.length],
    [`bytes=${SIZE - 100}-${SIZE + 2 * MiB}`, SIZE - 100, SIZE + 2 * MiB + 1],
  ] as [string, number, number][]) {
    const r = await get(n3, `/download?token=${token}&archive_format=zip`, { Range: range });
    assert.is(r.status, 206, range);
    assert.is(sha256(r.body), sha256(zip.body.subarray(from, to)), `zip ${range}`);
  }

  // An upload abandoned halfway (one chunk of two), never completed, expiring later: purge removes it too.
  const abandoned = (
    await call(n3, 'POST', '/transfer', {
      files: [{ name: 'half.bin', size: 2 * CHUNK }],
      recipients: ['r1@example.org'],
      from: 'alice@example.org',
      expires: expires + 10 * DAY,
    })
  ).json;
  const half = await putFirstChunk(n3, abandoned.files[0].id, 2 * CHUNK, big.subarray(0, CHUNK));
  assert.is(half.status, 200, half.text);
  const uids = { done: [bigFile.uid, smallFile.uid], abandoned: [abandoned.files[0].uid] };
  const before = await stored();
  assert.is(naming(before.objects, uids.done).length, 2, `both files are objects: ${before.objects}`);
  assert.is(
    naming(before.uploads, uids.abandoned).length,
    1,
    `the half upload is an unfinished multipart upload: ${before.uploads}`,
  );

  // Purge as cron runs it: its own process, the same config, at moments moved with --now: after the expiry; after
  // the week an unfinished upload is kept; and once the audit log's lifetime (31 days) has passed, when the
  // records of the closed transfer go too.
  const purge = (at: number) => {
    const r = runFerry(['purge', '--json', '-c', n1.configFile, '--now', String(at)], {
      env: s3Env(s3),
      timeoutMs: 120_000,
    });
    assert.is(r.code, 0, r.stdout + r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').pop()!);
  };
  const expired = purge(expires + 60);
  assert.is(expired.transfers_expired, 1);
  const afterExpiry = await stored();
  assert.equal(
    naming([...afterExpiry.objects, ...afterExpiry.uploads], uids.done),
    [],
    'the expired transfer has no data left',
  );
  assert.is(naming(afterExpiry.uploads, uids.abandoned).length, 1, 'the unfinished upload is kept for now');
  assert.is((await get(n3, one)).status, 410);
  const abandonedGone = purge(expires + 7 * DAY);
  assert.is(abandonedGone.abandoned_transfers_deleted, 1, 'a week after it was made');
  assert.equal(await stored(), { objects: [], uploads: [] }, 'nothing is left in the bucket');
  const later = purge(expires + 40 * DAY);
  assert.is(later.closed_transfers_deleted, 1);
  const ids = [t.id, abandoned.id];
  for (const [table, column] of [
    ['transfers', 'id'],
    ['files', 'transfer_id'],
    ['recipients', 'transfer_id'],
    ['audit_log', 'transfer_id'],
  ]) {
    const [{ n }] = await query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ANY($1)`, [ids]);
    assert.is(Number(n), 0, `${table} rows left`);
  }
  const [{ n: downloads }] = await query<{ n: string }>('SELECT COUNT(*) AS n FROM recipient_downloads');
  assert.is(Number(downloads), 0, 'recipient_downloads rows left');
  const again = purge(expires + 40 * DAY);
  assert.equal(
    [
      again.transfers_expired,
      again.abandoned_transfers_deleted,
      again.closed_transfers_deleted,
      again.orphan_files_deleted,
    ],
    [0, 0, 0, 0],
    'a second pass finds nothing more',
  );
});

test.run();
