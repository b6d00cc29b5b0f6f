import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startBinary, BinaryServer, BINARY } from '../helpers/binary';
import { startTestSink, addressOf, TestSink } from '../helpers/mail';
import { tempDir, asUser } from '../helpers/server';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { clusterNodeConfig, queryPostgres } from '../helpers/node-calls';
import { s3Env, s3NodeStorage, startS3, S3Server } from '../helpers/system/s3';
import { until } from '../helpers/until';

// Sharing controls on three `dist/ferry serve` nodes sharing one PostgreSQL and one S3 server, as behind a load
// balancer without stickiness (docs/sharing.md): a download limit holds exactly when downloads of the same
// link race on different nodes, and a download resumed with Range on another node does not count again; an
// automatic reminder is sent once while the three nodes' purge passes and cron's `ferry purge` all pass over it.

const MiB = 1024 * 1024;
const alice = asUser('alice');
let dir: string;
let databaseUrl: string;
let s3: S3Server;
let sink: TestSink;
let env: NodeJS.ProcessEnv;
const nodes: BinaryServer[] = [];

const query = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  queryPostgres<T>(databaseUrl, text, params);

async function call(
  node: BinaryServer,
  method: string,
  p: string,
  json?: unknown,
  headers: Record<string, string> = {},
) {
  const r = await fetch(`${node.url}${p}`, {
    method,
    headers: { ...alice, ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : Buffer.isBuffer(json) ? (json as unknown as BodyInit) : JSON.stringify(json),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await r.text();
  return { status: r.status, text, json: text && /^[[{]/.test(text) ? JSON.parse(text) : undefined };
}

test.before(async () => {
  dir = tempDir('ferry-3nodes-sharing-');
  [databaseUrl, s3, sink] = await Promise.all([freshPostgresDatabase('ferry_sharing'), startS3(), startTestSink()]);
  // Every node runs its purge pass (and so the automatic reminders) every 2 s.
  const config = clusterNodeConfig(databaseUrl, sink.url, s3NodeStorage(s3, 'ferry-sharing/'), {
    purge_interval_s: 2,
    transfer_automatic_reminder: [2],
  });
  env = s3Env(s3);
  for (const name of ['node1', 'node2', 'node3']) {
    fs.mkdirSync(path.join(dir, name));
    nodes.push(await startBinary({ dir: path.join(dir, name), config, env, timeoutMs: 60_000 }));
  }
});

test.after(async () => {
  for (const n of nodes) await n.stop();
  await s3?.stop();
  await sink?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('three nodes: racing downloads of one link on every node, one wins; a Range resume on another node counts once', async () => {
  const [n1, n2, n3] = nodes;
  const data = patternBytes('three-nodes limit', 12 * MiB + 5);
  const created = await call(n1, 'POST', '/transfer', {
    files: [{ name: 'big.bin', size: data.length }],
    options: ['get_a_link'],
    from: 'alice@example.org',
    expires: Math.floor(Date.now() / 1000) + 86400,
    download_limit: 2,
  });
  assert.is(created.status, 201, created.text);
  const fileId = created.json.files[0].id;
  for (let off = 0, i = 0; off < data.length; off += 5 * MiB, i++) {
    const chunk = data.subarray(off, Math.min(off + 5 * MiB, data.length));
    const r = await call(nodes[i % 3], 'PUT', `/file/${fileId}/chunk/${off}`, chunk, {
      'content-type': 'application/octet-stream',
      'X-Service-File-Size': String(data.length),
    });
    assert.is(r.status, 200, r.text);
  }
  assert.is((await call(n2, 'PUT', `/file/${fileId}`, { complete: true })).status, 200);
  const done = await call(n3, 'PUT', `/transfer/${created.json.id}`, { complete: true });
  assert.is(done.status, 200, done.text);
  const token = done.json.recipients[0].token;
  const url = (n: BinaryServer) => `${n.url}/download?token=${token}&files_ids=${fileId}`;

  // One whole download through node 1 (the first of two allowed).
  const first = await fetch(url(n1));
  assert.is(sha256(Buffer.from(await first.arrayBuffer())), sha256(data));
  await until(
    'the first download counted',
    async () => (await query('SELECT id FROM download_claims WHERE done IS NOT NULL')).length === 1,
    15_000,
  );

  // Nine downloads race for the last one, three on each node; their bodies are not read while they race.
  const answers = await Promise.all(
    [...nodes, ...nodes, ...nodes].map(
      (n) =>
        new Promise<http.IncomingMessage>((resolve, reject) =>
          http.get(url(n), { headers: { Accept: 'application/json' } }, resolve).on('error', reject),
        ),
    ),
  );
  const winners = answers.filter((a) => a.statusCode === 200);
  assert.is(winners.length, 1, `statuses ${answers.map((a) => a.statusCode).join(',')}`);
  assert.is(answers.filter((a) => a.statusCode === 410).length, 8);
  // The winner stops after its first bytes (a cut connection); the others' refusals are read whole.
  const winner = winners[0];
  const head: Buffer[] = [];
  let got = 0;
  for await (const c of winner) {
    head.push(c as Buffer);
    got += (c as Buffer).length;
    if (got >= MiB) break;
  }
  winner.destroy();
  for (const a of answers.filter((x) => x !== winner)) {
    let body = '';
    for await (const c of a) body += c;
    assert.is(JSON.parse(body).message, 'download_limit_reached');
  }
  const partial = Buffer.concat(head);
  // Resumed on another node from where it stopped: it goes on, and counts as the second download only.
  await until(
    'the cut download released',
    async () => (await query('SELECT id FROM download_claims WHERE active = 1')).length === 0,
    15_000,
  );
  const rest = await fetch(url(n3), { headers: { Range: `bytes=${partial.length}-` } });
  assert.is(rest.status, 206);
  assert.is(sha256(Buffer.concat([partial, Buffer.from(await rest.arrayBuffer())])), sha256(data));
  await until(
    'the resumed download counted',
    async () => (await query('SELECT id FROM download_claims WHERE done IS NOT NULL')).length === 2,
    15_000,
  );
  assert.is((await query('SELECT id FROM download_claims')).length, 2, 'two claims, no more');
  // Spent on every node.
  for (const n of nodes) assert.is((await fetch(url(n), { headers: { Accept: 'application/json' } })).status, 410);
  const owner = await call(n2, 'GET', `/transfer/${created.json.id}`);
  assert.equal(
    owner.json.download_counts.map((c: { downloads: number }) => c.downloads),
    [2],
  );
});

/** `ferry purge` as cron runs it, in a process of its own, with a node's config file. */
function cronPurge(node: BinaryServer): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn(BINARY, ['purge', '-c', node.configFile], { env: { ...process.env, ...env }, stdio: 'ignore' });
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

test('three nodes and cron: an automatic reminder is sent once', async () => {
  const [n1, n2, n3] = nodes;
  const created = await call(n2, 'POST', '/transfer', {
    files: [{ name: 'r.txt', size: 5 }],
    recipients: ['late@example.org'],
    from: 'alice@example.org',
    expires: Math.floor(Date.now() / 1000) + 5 * 86400,
  });
  assert.is(created.status, 201, created.text);
  const fileId = created.json.files[0].id;
  assert.is(
    (
      await call(n1, 'PUT', `/file/${fileId}/chunk/0`, Buffer.from('hello'), {
        'content-type': 'application/octet-stream',
      })
    ).status,
    200,
  );
  assert.is((await call(n3, 'PUT', `/file/${fileId}`, { complete: true })).status, 200);
  assert.is((await call(n1, 'PUT', `/transfer/${created.json.id}`, { complete: true })).status, 200);
  await until(
    'the first mail',
    async () => (await sink.messages()).some((m) => addressOf(m.to) === 'late@example.org'),
    20_000,
  );
  // Time passes: made available three days ago, its 2-day mark reached a minute ago.
  const now = Math.floor(Date.now() / 1000);
  await query('UPDATE transfers SET made_available = $1, expires = $2 WHERE id = $3', [
    now - 3 * 86400,
    now + 2 * 86400 - 60,
    created.json.id,
  ]);
  // The nodes' own passes and three cron runs at once, twice over.
  for (let round = 0; round < 2; round++)
    assert.equal(await Promise.all([cronPurge(n1), cronPurge(n2), cronPurge(n3)]), [0, 0, 0]);
  const reminders = async () =>
    (await sink.messages()).filter((m) => addressOf(m.to) === 'late@example.org' && /^Reminder/.test(m.subject ?? ''));
  await until('the reminder', async () => (await reminders()).length >= 1, 20_000);
  // Several more passes of every node (every 2 s) go by: still one.
  await new Promise((r) => setTimeout(r, 6000));
  assert.is((await reminders()).length, 1);
  assert.is((await query("SELECT * FROM automatic_reminders WHERE target_type = 'Recipient'")).length, 1);
  const log = await call(n3, 'GET', `/transfer/${created.json.id}/auditlog`);
  assert.is(log.json.filter((e: { event: string }) => e.event === 'transfer_automatic_reminder').length, 1);
});

test.run();
