import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { startTestServer, HEADER_SP, asUser, TestServer } from '../helpers/server';
import { patternBytes, sendChunks, sha256 } from '../helpers/upload-client';
import { movableClock } from '../helpers/session';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { S3Server, startS3, s3Storage } from '../helpers/system/s3';
import { until } from '../helpers/until';
import { CLAIM_LEASE_S } from '../../src/domain/download-limits';

/*
 * A download limit of 1 across two nodes on one PostgreSQL database and one S3 bucket (docs/sharing.md,
 * Download limits): Range requests racing on both nodes never make a second copy, whether the first copy's
 * bytes went out already or are still being sent on the other node; and a node that goes away while it sends
 * lets its claim go once the lease lapses, so the recipient resumes on the other node as the same copy.
 */
const MiB = 1024 * 1024;
const alice = asUser('alice');
const clock = movableClock();
let s3: S3Server;
let a: TestServer;
let b: TestServer;
let config: Record<string, unknown>;

test.before(async () => {
  const [databaseUrl, server] = await Promise.all([freshPostgresDatabase('ferry_limit_nodes'), startS3()]);
  s3 = server;
  config = {
    ...HEADER_SP,
    database_url: databaseUrl,
    storage: s3Storage(s3, `limit-${crypto.randomBytes(4).toString('hex')}/`),
  };
  a = await startTestServer(config, { clock: clock.clock });
  b = await startTestServer({ ...config, data_dir: path.join(a.dir, 'data-b') }, { clock: clock.clock });
});
test.after(async () => {
  await b?.close();
  await a?.close();
  await s3?.stop();
});

async function available(data: Buffer): Promise<{ id: number; fileId: number; token: string }> {
  const created = await a.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'f.bin', size: data.length }], download_limit: 1 }),
  });
  assert.is(created.status, 201, created.text);
  const fileId = created.json.files[0].id;
  for (const r of await sendChunks(b.request, fileId, data, 5 * MiB, { headers: alice }))
    assert.is(r.status, 200, r.text);
  assert.is((await a.request('PUT', `/file/${fileId}`, { headers: alice, json: { complete: true } })).status, 200);
  const done = await b.request('PUT', `/transfer/${created.json.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  return { id: created.json.id, fileId, token: done.json.recipients[0].token };
}

const opened = (node: TestServer, p: string, headers: Record<string, string> = {}) =>
  new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get(`${node.url}${p}`, { headers: { Accept: 'application/json', ...headers } }, resolve).on('error', reject),
  );

async function readAll(r: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

async function downloads(id: number): Promise<number[]> {
  const r = await b.request('GET', `/transfer/${id}`, { headers: alice });
  return (r.json.download_counts as { downloads: number }[]).map((c) => c.downloads);
}

test('a byte on one node, then six `Range: bytes=1-` on both at once: one copy', async () => {
  const data = patternBytes('nodes-six', 8 * MiB);
  const t = await available(data);
  const url = `/download?token=${t.token}&files_ids=${t.fileId}`;
  const first = await opened(a, url, { Range: 'bytes=0-0' });
  assert.is(first.statusCode, 206);
  const part0 = await readAll(first);
  const answers = await Promise.all([a, b, a, b, a, b].map((n) => opened(n, url, { Range: 'bytes=1-' })));
  assert.equal(answers.map((r) => r.statusCode).sort(), [206, 410, 410, 410, 410, 410]);
  for (const r of answers) {
    const body = await readAll(r);
    if (r.statusCode === 206) assert.is(sha256(Buffer.concat([part0, body])), sha256(data));
    else assert.is(JSON.parse(body.toString()).message, 'download_limit_reached');
  }
  await until('the copy counted', async () => (await downloads(t.id)).join() === '1', 15_000);
  for (const n of [a, b]) {
    const again = await opened(n, url, { Range: 'bytes=1-' });
    assert.is(again.statusCode, 410);
    await readAll(again);
  }
});

test('a whole download held open on one node, five `Range: bytes=1-` on both beside it: all refused', async () => {
  const data = patternBytes('nodes-held', 8 * MiB);
  const t = await available(data);
  const url = `/download?token=${t.token}&files_ids=${t.fileId}`;
  const held = await opened(a, url);
  assert.is(held.statusCode, 200);
  const ranges = await Promise.all([b, a, b, a, b].map((n) => opened(n, url, { Range: 'bytes=1-' })));
  assert.equal(
    ranges.map((r) => r.statusCode),
    [410, 410, 410, 410, 410],
  );
  for (const r of ranges) await readAll(r);
  assert.is(sha256(await readAll(held)), sha256(data));
  await until('the copy counted', async () => (await downloads(t.id)).join() === '1', 15_000);
});

test('a node stopped while it sends: once its lease lapses, the other node resumes the same copy', async () => {
  const data = patternBytes('nodes-restart', 24 * MiB);
  const t = await available(data);
  const url = `/download?token=${t.token}&files_ids=${t.fileId}`;
  // A third node on the same database and bucket, stopped while its answer is only partly read.
  const c = await startTestServer({ ...config, data_dir: path.join(a.dir, 'data-c') }, { clock: clock.clock });
  const held = await opened(c, url);
  assert.is(held.statusCode, 200);
  const parts: Buffer[] = [];
  let got = 0;
  await new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      parts.push(chunk);
      got += chunk.length;
      if (got < 2 * MiB) return;
      held.pause();
      held.off('data', onData);
      resolve();
    };
    held.on('data', onData);
  });
  held.on('error', () => {});
  // Stopped as a restart stops it: the answer still sending is cut after the grace period.
  await c.close();
  held.destroy();
  const kept = Buffer.concat(parts);
  // Whatever the stopped node managed to record, its lease lapses and the claim is free again.
  clock.advance(CLAIM_LEASE_S + 1);
  const rest = await opened(b, url, { Range: `bytes=${kept.length}-` });
  assert.is(rest.statusCode, 206);
  assert.is(sha256(Buffer.concat([kept, await readAll(rest)])), sha256(data));
  await until('the copy counted', async () => (await downloads(t.id)).join() === '1', 15_000);
  const asks: Record<string, string>[] = [{}, { Range: 'bytes=1-' }];
  for (const headers of asks) {
    const again = await opened(a, url, headers);
    assert.is(again.statusCode, 410);
    await readAll(again);
  }
});

test.run();
