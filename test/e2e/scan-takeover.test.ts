import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { patternBytes } from '../helpers/upload-client';
import { until } from '../helpers/until';
import { startSilentServer, type SilentServer } from '../helpers/silent-server';
import { startClamd, type Clamd } from '../helpers/system/clamd';
import { callOnce, type FaultCluster, mailsWith, startFaultCluster, uploadChunks } from '../helpers/fault-cluster';

// A node SIGKILLed mid-scan (docs/deploying.md, "When a node dies"): node 1's clamd takes the file and never
// answers, so node 1 is caught scanning, its claim renewed; it is killed there, and node 2 (started after node 1
// claimed, so it only ever sees the claim) takes the scan over with the real clamd once the claim lapses (30 s
// after its last renewal) and releases the transfer: the recipient is mailed once.

const MiB = 1024 * 1024;
const SIZE = 5 * MiB + 123;
const DAY = 86400;
/** The claim's lease (src/domain/virus-scans.ts) and a margin for a loaded machine. */
const BOUND_S = 30 + 10;

let c: FaultCluster;
let clamd: Clamd;
let hole: SilentServer;

test.before(async () => {
  // node 1's clamd takes the file and never answers.
  hole = await startSilentServer();
  clamd = await startClamd();
  const silent = `tcp://127.0.0.1:${hole.port}`;
  // Node 2 only comes up mid-scan, below; both may hold the scan past the lease (timeout_s).
  c = await startFaultCluster('scan-takeover', 1, (i) => ({
    antivirus: { clamd: i === 0 ? silent : clamd.url, timeout_s: 600 },
  }));
});

test.after(async () => {
  await c?.close();
  await clamd?.stop();
  await hole?.close();
});

test('a node killed mid-scan: another node takes the scan over within the claim (30 s) and releases the transfer, mailed once', async () => {
  const data = patternBytes('scan-takeover', SIZE);
  const created = await callOnce(c.nodes[0].url, 'POST', '/transfer', {
    files: [{ name: 'scanned.bin', size: SIZE }],
    recipients: ['scan@example.org'],
    from: 'alice@example.org',
    subject: 'scanned',
    expires: Math.floor(Date.now() / 1000) + DAY,
  });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  await uploadChunks(c.nodes, t.files[0].id, data, 5 * MiB);
  assert.is((await callOnce(c.nodes[0].url, 'PUT', `/file/${t.files[0].id}`, { complete: true })).status, 200);
  const done = await callOnce(c.nodes[0].url, 'PUT', `/transfer/${t.id}`, { complete: true });
  assert.is(done.status, 200, done.text);
  const claimLine = `claimed the virus scan of transfer ${t.id}`;
  await until('node 1 scanning', () => c.nodes[0].output().includes(claimLine), 15_000);
  const claimOf = async () =>
    Number(
      (await c.query<{ claim_until: string }>('SELECT claim_until FROM virus_scans WHERE transfer_id = $1', [t.id]))[0]
        .claim_until,
    );
  // Renewed while the scan runs: the claim moves on past its first end (renewed every 10 s).
  const first = await claimOf();
  await until('the claim renewed', async () => (await claimOf()) > first, 20_000);
  fs.mkdirSync(path.join(c.dir, 'node2'));
  await c.restart(1);
  await c.nodes[0].kill9();
  const killedAt = Date.now();
  const view = async () => (await callOnce(c.nodes[1].url, 'GET', `/transfer/${t.id}`)).json;
  assert.is((await view()).virus_scan.status, 'checking', 'still checking at the kill');
  await until('the scan, finished by node 2', async () => (await view()).virus_scan.status === 'clean', 90_000);
  const took = (Date.now() - killedAt) / 1000;
  console.log(`  the scan held by the killed node was finished by the other node ${took.toFixed(1)} s after the kill`);
  assert.ok(took <= BOUND_S, `finished ${took.toFixed(1)} s after the kill (the claim lasts 30 s)`);
  const out = c.nodes[1].output();
  assert.match(out, new RegExp(`took over \\(its claim lapsed\\) the virus scan of transfer ${t.id}\\b`));
  assert.match(out, new RegExp(`finished the virus scan of transfer ${t.id}: release`));
  assert.ok(!c.nodes[0].output().includes(`finished the virus scan of transfer ${t.id}`), 'node 1 never finished');
  assert.is((await view()).status, 'available');
  const token = t.recipients[0].token;
  await until('the recipient mailed', async () => (await mailsWith(c.sink, token)) >= 1, 30_000);
  assert.is(await mailsWith(c.sink, token), 1, 'mailed once');
});

test.run();
