import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { startBinary, BinaryServer } from '../helpers/binary';
import { tempDir, asUser } from '../helpers/server';
import { startTestSink, TestSink } from '../helpers/mail';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { callNode, clusterNodeConfig, queryPostgres } from '../helpers/node-calls';
import { s3Env, s3NodeStorage, startS3, S3Server } from '../helpers/system/s3';
import { startCuttingProxy, CuttingProxy } from '../helpers/cutting-proxy';
import { until } from '../helpers/until';

// Three `dist/ferry serve` nodes on one PostgreSQL and one S3 server (Swift with s3api), whose part limit is
// lowered to 3 parts per upload (`storage.max_parts`), so that a file of nine 5 MiB chunks is kept in segments and
// completed in the background. Node 1 takes the completion, and its store stops answering while it works on it
// (node 1 reaches S3 through a relay that stalls); node 1 is then SIGKILLed. Another node takes the work over
// once node 1's claim lapses, the Transfer becomes available, the recipient is mailed once, and the bytes served
// are the bytes sent.

const MiB = 1024 * 1024;
const CHUNK = 5 * MiB;
const SIZE = 8 * CHUNK + 3 * MiB + 77;
const alice = asUser('alice');
const PREFIX = 'ferry-takeover/';

let dir: string;
let sink: TestSink;
let databaseUrl: string;
let s3: S3Server;
let relay: CuttingProxy;
const nodes: BinaryServer[] = [];

const query = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  queryPostgres<T>(databaseUrl, text, params);

const call = (node: BinaryServer, method: string, p: string, json?: unknown) => callNode(node, alice, method, p, json);

test.before(async () => {
  dir = tempDir('ferry-takeover-');
  [sink, databaseUrl, s3] = await Promise.all([startTestSink(), freshPostgresDatabase('ferry_takeover'), startS3()]);
  relay = await startCuttingProxy(s3.endpoint);
  const storage = s3NodeStorage(s3, PREFIX, { max_parts: 3 });
  const config = clusterNodeConfig(databaseUrl, sink.url, storage);
  const env = s3Env(s3);
  for (const name of ['node1', 'node2', 'node3']) {
    fs.mkdirSync(path.join(dir, name));
    // Node 1 reaches the store through the relay.
    const own = name === 'node1' ? { ...config, storage: { ...storage, endpoint: relay.url } } : config;
    nodes.push(await startBinary({ dir: path.join(dir, name), config: own, env, timeoutMs: 60_000 }));
  }
});

test.after(async () => {
  for (const n of nodes) await n.stop().catch(() => {});
  await relay?.close();
  await sink?.close();
  await s3?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a background completion whose node dies is finished by another node: available, mailed once, the bytes sent', async () => {
  const [n1, n2, n3] = nodes;
  const data = patternBytes('takeover', SIZE);
  const created = await call(n1, 'POST', '/transfer', {
    files: [{ name: 'sequencing-run.tar', size: SIZE }],
    recipients: ['lab@example.org'],
    from: 'alice@example.org',
    subject: 'Run 42',
    expires: Math.floor(Date.now() / 1000) + 86400,
  });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  const f = t.files[0];
  for (let offset = 0, i = 0; offset < SIZE; offset += CHUNK, i++) {
    const chunk = data.subarray(offset, offset + CHUNK);
    const r = await fetch(`${nodes[i % 3].url}/file/${f.id}/chunk/${offset}`, {
      method: 'PUT',
      headers: {
        ...alice,
        'content-type': 'application/octet-stream',
        'X-Service-File-Size': String(SIZE),
        'X-Service-Chunk-Offset': String(offset),
        'X-Service-Chunk-Size': String(chunk.length),
      },
      body: chunk as unknown as BodyInit,
      signal: AbortSignal.timeout(30_000),
    });
    assert.is(r.status, 200, await r.text());
  }

  // Node 1's store stops answering; node 1 is asked to complete the file, and answers at once.
  relay.stall();
  const asked = await call(n1, 'PUT', `/file/${f.id}`, { complete: true });
  assert.is(asked.status, 200, asked.text);
  await until(
    'node 1 holding the claim',
    async () => (await query('SELECT assembly_claim FROM files WHERE id = $1', [f.id]))[0].assembly_claim !== null,
    10_000,
  );
  const completing = await call(n3, 'PUT', `/transfer/${t.id}`, { complete: true });
  assert.is(completing.status, 200, completing.text);
  assert.is(completing.json.status, 'uploading', 'answered before the file is assembled');
  assert.is(completing.json.completing, true, 'the answer says the completion waits for the assembly');
  await n1.kill9();
  assert.is((await call(n2, 'GET', `/transfer/${t.id}`)).json.status, 'uploading');

  // The claim lapses (30 s) and a node looking (every 5 s) takes the work over.
  const killedAt = Date.now();
  await until(
    'another node finishing the completion',
    async () => (await call(n2, 'GET', `/transfer/${t.id}`)).json.status === 'available',
    60_000,
  );
  const took = (Date.now() - killedAt) / 1000;
  assert.ok(took < 45, `taken over after ${took.toFixed(1)} s`);

  const mails = await sink.waitFor(1, 15_000);
  const token = t.recipients[0].token;
  // Give a second (wrong) mail the time to arrive, were one queued.
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(
    (await sink.messages()).filter((m) => `${m.text ?? ''}${m.html || ''}`.includes(token)).length,
    1,
    `one mail for the recipient (${mails.length} in the sink)`,
  );
  const got = await fetch(`${n3.url}/download?token=${token}&files_ids=${f.id}`, {
    signal: AbortSignal.timeout(60_000),
  });
  assert.is(got.status, 200);
  assert.is(sha256(Buffer.from(await got.arrayBuffer())), sha256(data));
  const events = (await query<{ event: string }>('SELECT event FROM audit_log WHERE transfer_id = $1', [t.id])).map(
    (r) => r.event,
  );
  assert.is(events.filter((e) => e === 'file_uploaded').length, 1, 'the file logged complete once');
  assert.is(events.filter((e) => e === 'transfer_available').length, 1, 'made available once');
});

test.run();
