import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { until } from '../helpers/until';
import { runFerry } from '../helpers/client-world';
import type { StoreFault } from '../helpers/fault-proxy';
import {
  type Answer,
  callOnce,
  callRetrying,
  type ChunkLog,
  downloadedSha256,
  failingParts,
  type FaultCluster,
  mailsWith,
  startFaultCluster,
  uploadChunks,
} from '../helpers/fault-cluster';

// Two `dist/ferry serve` nodes on one PostgreSQL and one S3 server (Swift's s3api), both reaching the store
// through a proxy that plays its faults (test/helpers/fault-proxy.ts): 500 and 503 SlowDown for a while,
// connections reset mid-part, a stall longer than the nodes' request deadline (15 s), the store unreachable.
// A client uploads through both nodes and, like a load balancer's client, sends a chunk answered 503 (or not
// answered) again to the other node. Each time: no answer is a 500 (the helpers fail the process on one), every
// 503 carries Retry-After, /readyz says `store` while the store is broken and is ready again once it is back, the
// finished file is the bytes sent (downloaded, and as the SHA-256 recorded), and the recipient gets one mail.
// The outage lasts 30 s; these last 6–20 s: a node's behaviour does not change past its deadlines
// (15 s per store request, 2 s per readiness check), which the stall alone needs to exceed.

const MiB = 1024 * 1024;
const CHUNK = 5 * MiB;
const SIZE = 3 * CHUNK + 77;

let c: FaultCluster;

test.before(async () => {
  c = await startFaultCluster('faults-store', 2, () => ({ metrics: { allow: ['127.0.0.1'] } }));
});

test.after(async () => {
  await c?.close();
});

interface Outcome {
  chunks: ChunkLog[];
  answers: Answer[];
  /** /readyz of each node, sampled every 500 ms: the failing parts, with the fault then in force. */
  ready: { node: number; fault: StoreFault; failing: string[]; at: number }[];
  faultEndedAt: number;
}

/** Samples /readyz on every node until stopped. */
function watchReadiness(out: Outcome['ready']): () => Promise<void> {
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const fault = c.store.fault();
      const at = Date.now();
      const parts = await Promise.all(c.nodes.map((n) => failingParts(n)));
      parts.forEach((failing, node) => out.push({ node, fault, failing, at }));
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return async () => {
    stop = true;
    await loop;
  };
}

/**
 * A transfer of one file uploaded through both nodes while `plan` plays a fault, then completed (retried like a
 * chunk), and checked: available, the bytes sent on the other node, the SHA-256 recorded, one mail.
 */
async function uploadThrough(label: string, plan: () => Promise<void>): Promise<Outcome> {
  const answers: Answer[] = [];
  const data = patternBytes(label, SIZE);
  const created = await callRetrying(c.nodes, answers, 'POST', '/transfer', {
    files: [{ name: `${label}.bin`, size: SIZE }],
    recipients: ['lab@example.org'],
    from: 'alice@example.org',
    subject: label,
    expires: Math.floor(Date.now() / 1000) + 86400,
  });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  const ready: Outcome['ready'] = [];
  const stopWatching = watchReadiness(ready);
  try {
    return await finishThrough(t, data, answers, ready, stopWatching, plan);
  } finally {
    await stopWatching();
  }
}

async function finishThrough(
  t: any,
  data: Buffer,
  answers: Answer[],
  ready: Outcome['ready'],
  stopWatching: () => Promise<void>,
  plan: () => Promise<void>,
): Promise<Outcome> {
  const f = t.files[0];
  let faultEndedAt = 0;
  // The first chunk goes before the fault and the others into it, the fault set before they leave: on an idle
  // machine a fault set a few hundred ms into the upload came after every chunk had its 200.
  const first = await uploadChunks(c.nodes, f.id, data, CHUNK, 1, 1);
  const [, rest] = await Promise.all([
    plan().then(() => {
      c.store.set('none');
      faultEndedAt = Date.now();
    }),
    uploadChunks(c.nodes, f.id, data, CHUNK, 2, Number.POSITIVE_INFINITY, 1),
  ]);
  const chunks = [...first, ...rest];
  const fileDone = await callRetrying(c.nodes, answers, 'PUT', `/file/${f.id}`, { complete: true });
  assert.is(fileDone.status, 200, fileDone.text);
  const done = await callRetrying(c.nodes, answers, 'PUT', `/transfer/${t.id}`, { complete: true });
  assert.is(done.status, 200, done.text);
  // Ready again on every node once the store is back (sampled every 500 ms; the failing probe has its 3 s deadline).
  await until(
    'every node ready again',
    async () =>
      ready.some((r) => r.at > faultEndedAt + 1000) &&
      (await Promise.all(c.nodes.map(failingParts))).every((p) => p.length === 0),
    20_000,
  );
  await stopWatching();
  await until(
    'the transfer available',
    async () => (await callOnce(c.nodes[1].url, 'GET', `/transfer/${t.id}`)).json?.status === 'available',
    60_000,
  );
  const token = t.recipients[0].token;
  assert.is(await downloadedSha256(c.nodes[1], token, f.id), sha256(data), 'the bytes sent, downloaded from node 2');
  // The SHA-256 a node reads back in the background, as recorded.
  await until(
    'the SHA-256 recorded',
    async () =>
      (await c.query<{ sha256: string | null }>('SELECT sha256 FROM files WHERE id = $1', [f.id]))[0].sha256 !== null,
    60_000,
  );
  const [{ sha256: recorded }] = await c.query<{ sha256: string }>('SELECT sha256 FROM files WHERE id = $1', [f.id]);
  assert.is(recorded, sha256(data), 'the SHA-256 recorded is the bytes sent');
  await until('the mail', async () => (await mailsWith(c.sink, token)) >= 1, 30_000);
  await new Promise((r) => setTimeout(r, 1000));
  assert.is(await mailsWith(c.sink, token), 1, 'one mail to the recipient');

  for (const a of [...answers, ...chunks])
    if ('status' in a && a.status === 503)
      assert.ok(a.retryAfter, `a 503 carries Retry-After: ${'text' in a ? a.text : ''}`);
  const statuses = new Set([...answers.map((a) => a.status), ...chunks.map((k) => k.status)]);
  assert.not.ok(statuses.has(500), `no 500 (${[...statuses].join(', ')})`);
  return { chunks, answers, ready, faultEndedAt };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function notReadyDuring(o: Outcome, fault: StoreFault) {
  for (const node of [0, 1])
    assert.ok(
      o.ready.some((r) => r.node === node && r.fault === fault && r.failing.includes('store')),
      `node ${node + 1}'s /readyz said "store" during ${fault}: ${JSON.stringify(o.ready.filter((r) => r.node === node).map((r) => [r.fault, r.failing]))}`,
    );
}

test('S3 answers 503 SlowDown, then 500, for a while: chunks get 503 with Retry-After and are sent again; nothing is lost', async () => {
  const o = await uploadThrough('slowdown', async () => {
    c.store.set('slowdown');
    await pause(4000);
    c.store.set('internal');
    await pause(3000);
  });
  assert.ok(
    o.chunks.some((k) => k.status === 503),
    'some chunk was refused with 503 during the fault',
  );
  notReadyDuring(o, 'slowdown');
  assert.ok(c.store.seen.slowdown > 0 && c.store.seen.internal > 0);
});

test('S3 connections reset mid-part: the chunk is answered 503 and sent again; nothing is lost', async () => {
  const o = await uploadThrough('reset', async () => {
    c.store.set('reset');
    await pause(5000);
  });
  assert.ok(
    o.chunks.some((k) => k.status === 503),
    `some chunk was refused during the resets: ${JSON.stringify(o.chunks.map((k) => k.status))}`,
  );
});

test('S3 stalls longer than the request deadline: the chunk is answered 503 within the client timeout, /readyz recovers with the frozen connections still open', async () => {
  const o = await uploadThrough('stall', async () => {
    c.store.set('stall');
    await pause(20_000);
  });
  const slowest = Math.max(...o.chunks.map((k) => k.ms));
  assert.ok(slowest < 45_000, `every chunk answered within 45 s (slowest ${slowest} ms)`);
  assert.ok(
    o.chunks.some((k) => k.status === 503 && k.ms >= 10_000),
    `a chunk caught in the stall was answered 503 after the deadline: ${JSON.stringify(o.chunks.map((k) => [k.status, k.ms]))}`,
  );
  notReadyDuring(o, 'stall');
});

test('S3 stalls mid-download (headers came, then the body stops): the download is cut within the store deadline (15 s), counted, and resumes with Range', async () => {
  await uploadThrough('stall-body', async () => {});
  const [row] = await c.query<{ id: string; token: string }>(
    `SELECT f.id, r.token FROM files f JOIN transfers t ON t.id = f.transfer_id
       JOIN recipients r ON r.transfer_id = t.id WHERE t.subject = 'stall-body'`,
  );
  const data = patternBytes('stall-body', SIZE);
  const url = `${c.nodes[0].url}/download?token=${row.token}&files_ids=${row.id}`;
  c.store.set('stall-body');
  const began = Date.now();
  const got: Buffer[] = [];
  let cut = '';
  // The client's own deadline (60 s, the issue's) must not be what ends it.
  const r = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  assert.is(r.status, 200);
  try {
    for await (const b of r.body as unknown as AsyncIterable<Uint8Array>) got.push(Buffer.from(b));
  } catch (e) {
    cut = String((e as Error).message);
  }
  const took = Date.now() - began;
  c.store.set('none');
  const head = Buffer.concat(got);
  console.log(`  the stalled download was cut after ${took} ms, ${head.length} of ${SIZE} bytes sent (${cut})`);
  assert.ok(cut !== '' && !/timeout|abort/i.test(cut), `the connection was cut by the node: ${cut}`);
  assert.ok(head.length > 0 && head.length < SIZE, `some bytes, never an answer that looks whole: ${head.length}`);
  assert.ok(
    took >= 14_000 && took < 30_000,
    `cut after the store's 15 s deadline, well before the client's: ${took} ms`,
  );
  assert.ok(head.equals(data.subarray(0, head.length)), 'what came before the cut is the file');
  // The client resumes from where it was cut.
  const rest = await fetch(url, { headers: { Range: `bytes=${head.length}-` }, signal: AbortSignal.timeout(60_000) });
  assert.is(rest.status, 206);
  const tail = Buffer.from(await rest.arrayBuffer());
  assert.is(sha256(Buffer.concat([head, tail])), sha256(data), 'the whole file, in two answers');
  const metrics = await (await fetch(`${c.nodes[0].url}/metrics`)).text();
  assert.match(metrics, /ferry_storage_errors_total\{kind="download_cut"\} 1/);
  assert.match(
    c.nodes[0].output(),
    /cut: storage_unavailable: the object store sent no bytes of its answer for 15000 ms/,
  );
});

test('S3 unreachable: chunks get 503, /readyz says "store", and the upload goes on once it is back', async () => {
  const o = await uploadThrough('down', async () => {
    c.store.set('down');
    await pause(8000);
  });
  assert.ok(o.chunks.some((k) => k.status === 503));
  notReadyDuring(o, 'down');
});

test('`ferry send` while the store answers 503 SlowDown: it retries and the transfer is whole', async () => {
  const home = path.join(c.dir, 'client-home');
  fs.mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, 'config') };
  for (const k of ['FERRY_URL', 'FERRY_USER', 'FERRY_SECRET', 'FERRY_REMOTE_CONFIG', 'FERRY_CONFIG', 'FERRY_PASSWORD'])
    delete env[k];
  const me = await callOnce(c.nodes[0].url, 'GET', '/user');
  assert.is(me.status, 200, me.text);
  const w = { home, env };
  // The profile string names base_url (the load balancer's address, which this test has not): node 1 instead.
  const profile = String(me.json.remote_config).replace('http://localhost:8080', c.nodes[0].url);
  const login = await runFerry(w, ['login', profile]);
  assert.is(login.code, 0, login.stderr);
  const file = path.join(home, 'results.bin');
  const bytes = crypto.randomBytes(2 * CHUNK + 1234);
  fs.writeFileSync(file, bytes);
  c.store.set('slowdown');
  const sent = runFerry(w, ['send', file, '-r', 'bob@example.org', '-s', 'results', '--json'], { timeoutMs: 180_000 });
  await pause(6000);
  c.store.set('none');
  const r = await sent;
  assert.is(r.code, 0, `ferry send: ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  const t = await callOnce(c.nodes[1].url, 'GET', `/transfer/${out.transfer_id}`);
  assert.is(t.status, 200, t.text);
  assert.is(t.json.status, 'available');
  const f = t.json.files[0];
  assert.is(await downloadedSha256(c.nodes[1], t.json.recipients[0].token, f.id), sha256(bytes));
});

test.run();
