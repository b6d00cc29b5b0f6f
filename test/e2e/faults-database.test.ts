import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { until } from '../helpers/until';
import { startSilentServer, type SilentServer } from '../helpers/silent-server';
import { s3Client } from '../helpers/system/s3';
import {
  type Answer,
  callOnce,
  callRetrying,
  type ChunkLog,
  downloadedSha256,
  failingParts,
  type FaultCluster,
  mailsWith,
  runAsync,
  startFaultCluster,
  uploadChunks,
} from '../helpers/fault-cluster';

// Two `dist/ferry serve` nodes on one PostgreSQL and one S3 server, reaching PostgreSQL through a relay that cuts
// every connection and refuses new ones (test/helpers/cutting-proxy.ts). PostgreSQL restarts, and is unreachable
// mid-upload and mid-completion: clients see 503 with Retry-After (never a 500), /readyz says "database" while it
// is away, and the finished file is the bytes sent, with one mail. Then a node is SIGKILLed right after it
// answered the completion, holding the recipient's mail (its mail server never answers): the other node sends it
// once its claim lapses (30 s), once. Last, `ferry purge` is SIGKILLed mid-pass, its store stalled: the next pass
// leaves no object, multipart upload or row behind. The issue's outage lasts 30 s; these last 8 s (each node's
// behaviour does not change past its deadlines: 5 s to connect, 2 s per readiness check).

const MiB = 1024 * 1024;
const CHUNK = 5 * MiB;
const SIZE = 3 * CHUNK + 77;
const DAY = 86400;

let c: FaultCluster;
let hole: SilentServer;

test.before(async () => {
  // A mail server that takes the connection and never says a word (node 1's, in the takeover test).
  hole = await startSilentServer();
  c = await startFaultCluster('faults-db', 2);
});

test.after(async () => {
  await c?.close();
  await hole?.close();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Made {
  t: any;
  data: Buffer;
  answers: Answer[];
}

async function newTransfer(label: string, recipient = 'lab@example.org'): Promise<Made> {
  const answers: Answer[] = [];
  const data = patternBytes(label, SIZE);
  const created = await callRetrying(c.nodes, answers, 'POST', '/transfer', {
    files: [{ name: `${label}.bin`, size: SIZE }],
    recipients: [recipient],
    from: 'alice@example.org',
    subject: label,
    expires: Math.floor(Date.now() / 1000) + DAY,
  });
  assert.is(created.status, 201, created.text);
  return { t: created.json, data, answers };
}

/** The file, then the transfer, completed as a client does (each asked again after a 503). */
async function completeAll(m: Made) {
  const f = await callRetrying(c.nodes, m.answers, 'PUT', `/file/${m.t.files[0].id}`, { complete: true });
  assert.is(f.status, 200, f.text);
  const done = await callRetrying(c.nodes, m.answers, 'PUT', `/transfer/${m.t.id}`, { complete: true });
  assert.is(done.status, 200, done.text);
}

/** Available, the bytes sent from node 2, the SHA-256 recorded, one mail; no 500 and every 503 with Retry-After. */
async function checkWhole(m: Made, chunks: ChunkLog[]) {
  const f = m.t.files[0];
  await until(
    'the transfer available',
    async () => (await callOnce(c.nodes[1].url, 'GET', `/transfer/${m.t.id}`)).json?.status === 'available',
    60_000,
  );
  const token = m.t.recipients[0].token;
  assert.is(await downloadedSha256(c.nodes[1], token, f.id), sha256(m.data));
  await until(
    'the SHA-256 recorded',
    async () =>
      (await c.query<{ sha256: string | null }>('SELECT sha256 FROM files WHERE id = $1', [f.id]))[0].sha256 !== null,
    60_000,
  );
  const [{ sha256: recorded }] = await c.query<{ sha256: string }>('SELECT sha256 FROM files WHERE id = $1', [f.id]);
  assert.is(recorded, sha256(m.data));
  await until('the mail', async () => (await mailsWith(c.sink, token)) >= 1, 30_000);
  await pause(1000);
  assert.is(await mailsWith(c.sink, token), 1, 'one mail to the recipient');
  const all = [...m.answers, ...chunks];
  assert.not.ok(
    all.some((a) => a.status === 500),
    `no 500: ${JSON.stringify(all.filter((a) => a.status >= 500).map((a) => a.text))}`,
  );
  for (const a of all) if (a.status === 503) assert.ok(a.retryAfter, `503 with Retry-After: ${a.text}`);
}

/** Samples /readyz of both nodes every 300 ms while `during` runs; true when each said "database" at least once. */
async function sawDatabaseDown(during: Promise<unknown>): Promise<boolean[]> {
  const seen = [false, false];
  let done = false;
  void during.finally(() => (done = true));
  while (!done) {
    const parts = await Promise.all(c.nodes.map(failingParts));
    parts.forEach((p, i) => {
      if (p.includes('database')) seen[i] = true;
    });
    await pause(300);
  }
  return seen;
}

async function readyAgain() {
  await until(
    'both nodes ready again',
    async () => (await Promise.all(c.nodes.map(failingParts))).every((p) => p.length === 0),
    20_000,
  );
}

test('PostgreSQL restarts mid-upload: chunks get 503 or go through, never 500; the file is whole', async () => {
  const m = await newTransfer('pg-restart');
  const outage = (async () => {
    await pause(500);
    c.postgres.stop();
    await pause(4000);
    c.postgres.start();
  })();
  const [chunks, seen] = await Promise.all([
    uploadChunks(c.nodes, m.t.files[0].id, m.data, CHUNK),
    sawDatabaseDown(outage),
    outage,
  ]);
  await readyAgain();
  assert.equal(seen, [true, true], '/readyz said "database" on both nodes while it was down');
  await completeAll(m);
  await checkWhole(m, chunks);
});

test('PostgreSQL unreachable mid-upload: 503 with Retry-After while it is away, then the upload goes on', async () => {
  const m = await newTransfer('pg-away-upload');
  // The first chunk goes before the cut and the others during it: on an idle machine the whole upload took
  // less than a cut timed from its start (every chunk answered 200 before the database went away).
  const first = await uploadChunks(c.nodes, m.t.files[0].id, m.data, CHUNK, 1, 1);
  c.database.cut(8000);
  const outage = pause(8000);
  const [rest, seen] = await Promise.all([
    uploadChunks(c.nodes, m.t.files[0].id, m.data, CHUNK, 2, Number.POSITIVE_INFINITY, 1),
    sawDatabaseDown(outage),
    outage,
  ]);
  const chunks = [...first, ...rest];
  await readyAgain();
  assert.equal(seen, [true, true]);
  assert.ok(
    chunks.some((k) => k.status === 503),
    `a chunk was refused while the database was away: ${JSON.stringify(chunks.map((k) => k.status))}`,
  );
  await completeAll(m);
  await checkWhole(m, chunks);
});

test('PostgreSQL unreachable mid-completion: the completion is answered 503 and done when asked again; one mail', async () => {
  const m = await newTransfer('pg-away-complete');
  const chunks = await uploadChunks(c.nodes, m.t.files[0].id, m.data, CHUNK);
  const first = callOnce(c.nodes[0].url, 'PUT', `/file/${m.t.files[0].id}`, { complete: true });
  await pause(20);
  c.database.cut(8000);
  const a = await first;
  m.answers.push(a);
  assert.ok([200, 503].includes(a.status), `the completion cut short: ${a.status} ${a.text}`);
  await completeAll(m);
  assert.ok(
    m.answers.some((x) => x.status === 503),
    `some completion attempt saw the database away: ${m.answers.map((x) => x.status)}`,
  );
  await readyAgain();
  await checkWhole(m, chunks);
});

test('PostgreSQL silent (connections accepted, nothing answered, no reset): requests answer 503 within the statement deadline (15 s), /readyz says "database"; then the upload goes on', async () => {
  const m = await newTransfer('pg-silent');
  const first = await uploadChunks(c.nodes, m.t.files[0].id, m.data, CHUNK, 1, 1);
  c.database.stall();
  const asked = Promise.all(
    c.nodes.map(async (n) => {
      const began = Date.now();
      const a = await callOnce(n.url, 'GET', '/transfer');
      return { a, ms: Date.now() - began };
    }),
  );
  const seen = await sawDatabaseDown(asked);
  const answers = await asked;
  c.database.unstall();
  console.log(`  answered on a silent database after ${answers.map((x) => `${x.ms} ms`).join(', ')}`);
  for (const { a, ms } of answers) {
    assert.is(a.status, 503, a.text);
    assert.is(a.json?.message, 'database_unavailable');
    assert.ok(a.retryAfter, 'with Retry-After');
    assert.ok(ms < 25_000, `answered within the statement deadline and its margin: ${ms} ms`);
  }
  assert.equal(seen, [true, true], '/readyz said "database" on both nodes while it was silent');
  await readyAgain();
  const rest = await uploadChunks(c.nodes, m.t.files[0].id, m.data, CHUNK, 2, Number.POSITIVE_INFINITY, 1);
  await completeAll(m);
  m.answers.push(...answers.map((x) => x.a));
  await checkWhole(m, [...first, ...rest]);
});

test('a node killed right after answering the completion, its mail claimed and unsent: the other node sends it within the claim (30 s), once', async () => {
  // Node 1 again, with a mail server that never answers: it claims the mail and waits on it.
  await c.nodes[0].stop();
  await c.restart(0, { mail: { transport: `smtp://127.0.0.1:${hole.port}` } });
  const m = await newTransfer('killed-after-complete', 'late@example.org');
  const chunks = await uploadChunks(c.nodes, m.t.files[0].id, m.data, CHUNK);
  const fileDone = await callOnce(c.nodes[0].url, 'PUT', `/file/${m.t.files[0].id}`, { complete: true });
  assert.is(fileDone.status, 200, fileDone.text);
  const done = await callOnce(c.nodes[0].url, 'PUT', `/transfer/${m.t.id}`, { complete: true });
  assert.is(done.status, 200, done.text);
  m.answers.push(done);
  const pid = c.nodes[0].proc.pid!;
  await until(
    'node 1 holding the mail',
    async () =>
      (
        await c.query<{ claimed_by: string | null }>(
          `SELECT claimed_by FROM mail_queue WHERE to_addr = 'late@example.org' AND status = 'pending'`,
        )
      ).some((r) => r.claimed_by?.endsWith(`:${pid}`)),
    15_000,
  );
  await c.nodes[0].kill9();
  const killedAt = Date.now();
  const token = m.t.recipients[0].token;
  await until('the mail, sent by node 2', async () => (await mailsWith(c.sink, token)) >= 1, 60_000);
  const took = (Date.now() - killedAt) / 1000;
  console.log(`  the mail held by the killed node was sent by the other node ${took.toFixed(1)} s after the kill`);
  assert.ok(took <= 40, `mailed ${took.toFixed(1)} s after the kill (the claim lasts 30 s)`);
  assert.match(c.nodes[1].output(), new RegExp(`took over mail \\d+ to=late@example.org from [^ ]+:${pid}`));
  // Node 1 comes back (with a mail server that answers) for the tests after this one.
  await c.restart(0);
  await checkWhole(m, chunks);
});

test('`ferry purge` SIGKILLed mid-pass (its store stalled): the next pass leaves no object, multipart upload or row', async () => {
  // One transfer complete and one abandoned halfway (an unfinished multipart upload), both past their time.
  const whole = await newTransfer('purge-whole');
  await uploadChunks(c.nodes, whole.t.files[0].id, whole.data, CHUNK);
  await completeAll(whole);
  const half = await newTransfer('purge-half');
  await uploadChunks(c.nodes, half.t.files[0].id, half.data, CHUNK, 2, 2);
  await until(
    'the first transfer available',
    async () => (await callOnce(c.nodes[1].url, 'GET', `/transfer/${whole.t.id}`)).json?.status === 'available',
    60_000,
  );
  const ids = [whole.t.id, half.t.id];
  const bucket = s3Client(c.s3);
  const prefix = 'faults-db/';
  const stored = async () => {
    const objects = await bucket.send(new ListObjectsV2Command({ Bucket: c.s3.bucket, Prefix: prefix }));
    const uploads = await bucket.send(new ListMultipartUploadsCommand({ Bucket: c.s3.bucket, Prefix: prefix }));
    const mine = (k: string) => ids.some((id) => k.startsWith(`${prefix}${id}/`));
    return {
      objects: (objects.Contents ?? []).map((o) => o.Key!).filter(mine),
      uploads: (uploads.Uploads ?? []).map((u) => u.Key!).filter(mine),
    };
  };
  const before = await stored();
  assert.ok(before.objects.length > 0 && before.uploads.length > 0, JSON.stringify(before));
  const now = Math.floor(Date.now() / 1000);
  const purge = (at: number, onStart?: Parameters<typeof runAsync>[3]) =>
    runAsync(['purge', '--json', '-c', c.nodes[1].configFile, '--now', String(at)], c.env, 120_000, onStart);

  // The store stalls; the pass takes the purge lock and hangs on the store; it is killed there.
  c.store.set('stall');
  let child: import('node:child_process').ChildProcess | undefined;
  const killed = purge(now + 2 * DAY + 8 * DAY, (p) => (child = p));
  await until(
    'the purge pass holding its lock',
    async () =>
      Number(
        (await c.query<{ n: string }>(`SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted`))[0]
          .n,
      ) > 0,
    30_000,
  );
  await pause(1500);
  child!.kill('SIGKILL');
  const r = await killed;
  assert.is(r.code, null, 'killed mid-pass');
  c.store.set('none');

  // The next passes, as cron runs them: after the expiry and the week an unfinished upload is kept, then after the
  // audit log's lifetime.
  const again = await purge(now + 10 * DAY);
  assert.is(again.code, 0, again.stdout + again.stderr);
  assert.equal(await stored(), { objects: [], uploads: [] }, 'no object or multipart upload left');
  const later = await purge(now + 50 * DAY);
  assert.is(later.code, 0, later.stdout + later.stderr);
  for (const [table, column] of [
    ['transfers', 'id'],
    ['files', 'transfer_id'],
    ['recipients', 'transfer_id'],
  ]) {
    const [{ n }] = await c.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ANY($1)`, [ids]);
    assert.is(Number(n), 0, `${table} rows left`);
  }
});

test.run();
