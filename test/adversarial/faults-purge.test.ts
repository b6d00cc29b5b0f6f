import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { BINARY, runFerry, startBinary, BinaryServer } from '../helpers/binary';
import { asUser, freePort, request } from '../helpers/server';
import {
  createTransfer,
  fileOnDisk,
  filesTree,
  openChecked,
  putChunk,
  rng,
  sleep,
  SP,
  uploadWhole,
} from './faults-fixture';
import { patternBytes, sha256 } from '../helpers/upload-client';

const DAY = 86400;
const EXPIRED = 30;
const ROUNDS = 6;
const CHUNK = 256 * 1024;
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 100_000);
const now = Math.floor(Date.now() / 1000);
const PURGE_AT = now + 2 * DAY;
const owner = (i: number) => asUser(`u${i}`);

/** A Transfer of `owner`, its files uploaded and completed, made available. */
async function available(
  url: string,
  who: Record<string, string>,
  datas: Buffer[],
  expires: number,
  options: string[],
) {
  const r = await request(url, 'POST', '/transfer', {
    headers: who,
    json: {
      files: datas.map((d, i) => ({ name: `f${i}`, size: d.length })),
      recipients: ['r@example.org'],
      from: who['X-Remote-Email'],
      expires,
      options,
    },
  });
  assert.is(r.status, 201, r.text);
  for (const [i, d] of datas.entries()) {
    await uploadAs(url, who, r.json.files[i].id, d);
    assert.is(
      (await request(url, 'PUT', `/file/${r.json.files[i].id}`, { headers: who, json: { complete: true } })).status,
      200,
    );
  }
  assert.is(
    (await request(url, 'PUT', `/transfer/${r.json.id}`, { headers: who, json: { complete: true } })).status,
    200,
  );
  return r.json;
}

async function uploadAs(url: string, who: Record<string, string>, fileId: number, d: Buffer) {
  for (let off = 0; off < d.length; off += CHUNK) {
    const size = Math.min(CHUNK, d.length - off);
    const r = await request(url, 'PUT', `/file/${fileId}/chunk/${off}`, {
      body: d.subarray(off, off + size),
      headers: { ...who, 'content-type': 'application/octet-stream' },
    });
    assert.is(r.status, 200, r.text);
  }
}

test(`SIGKILL during ferry purge while serve runs and takes uploads, ${ROUNDS} rounds: a rerun finishes the job and touches nothing alive (seed ${SEED})`, async () => {
  const random = rng(SEED);
  // SMTP is down: the expiry mails stay queued, where they can be counted.
  const s: BinaryServer = await startBinary({
    config: { ...SP, upload_chunk_size: CHUNK, mail: { transport: `smtp://127.0.0.1:${await freePort()}` } },
  });
  let uploading = true;
  let uploader: Promise<unknown> = Promise.resolve();
  const purge = (args: string[] = []) =>
    spawn(BINARY, ['purge', '--now', String(PURGE_AT), '-c', s.configFile, ...args], { stdio: 'ignore' });
  try {
    const expired: any[] = [];
    for (let i = 0; i < EXPIRED; i++) {
      const datas = [patternBytes(`e${i}a`, 64 * 1024 + i), patternBytes(`e${i}b`, 200_000), patternBytes(`e${i}c`, 1)];
      expired.push(await available(s.url, owner(i), datas, now + DAY, ['email_me_on_expire']));
    }
    // Alive after PURGE_AT: an available Transfer, one half uploaded, one with nothing yet.
    const keptData = [patternBytes('k0', 700_000), patternBytes('k1', 3 * CHUNK)];
    const kept = await available(s.url, asUser('alice'), [keptData[0]], now + 10 * DAY, []);
    const partial = await createTransfer(
      s.url,
      [{ name: 'p', size: keptData[1].length }],
      ['r@example.org'],
      [],
      now + 10 * DAY,
    );
    assert.is((await putChunk(s.url, partial.files[0].id, keptData[1], CHUNK, CHUNK)).status, 200);
    const empty = await createTransfer(s.url, [{ name: 'e', size: 10 }], ['r@example.org'], [], now + 10 * DAY);

    // While purge runs, serve keeps taking new Transfers and their data: none of it may be taken for an orphan.
    const fresh: { t: any; data: Buffer }[] = [];
    uploader = (async () => {
      for (let n = 0; uploading && n < 500; n++) {
        const data = patternBytes(`n${n}`, 50_000);
        const t = await createTransfer(
          s.url,
          [{ name: 'n', size: data.length }],
          ['r@example.org'],
          [],
          now + 10 * DAY,
        );
        await uploadWhole(s.url, t.files[0].id, data, CHUNK);
        fresh.push({ t, data });
      }
    })();

    let midRun = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const p = purge();
      const exited = new Promise((r) => p.once('exit', r));
      // Kill once it is seen deleting (a directory of an expired Transfer gone), a random few ms later.
      const expiredLeft = () => {
        const tree = filesTree(s.dir);
        return expired.filter((t) => tree.has(t.id)).length;
      };
      const before = expiredLeft();
      const deadline = Date.now() + 15_000;
      while (p.exitCode === null && expiredLeft() >= before && Date.now() < deadline) await sleep(1);
      await sleep(random() * 15);
      const wasRunning = p.exitCode === null;
      p.kill('SIGKILL');
      await exited;
      if (wasRunning) midRun++;
      openChecked(s.dir).close();
    }
    uploading = false;
    await uploader;
    assert.ok(midRun > 0, 'at least one purge was killed while it ran');

    const rerun = runFerry(['purge', '--json', '--now', String(PURGE_AT), '-c', s.configFile]);
    assert.is(rerun.code, 0, rerun.stderr);
    const db = openChecked(s.dir);
    const tree = filesTree(s.dir);
    const status = (id: number) =>
      (db.prepare('SELECT status FROM transfers WHERE id = ?').get(id) as { status: string }).status;
    for (const [i, t] of expired.entries()) {
      assert.is(status(t.id), 'closed', `expired Transfer ${t.id}`);
      assert.not.ok(tree.has(t.id), `data of expired Transfer ${t.id} still on disk`);
      const events = db
        .prepare(`SELECT COUNT(*) AS n FROM audit_log WHERE transfer_id = ? AND event = 'transfer_expired'`)
        .get(t.id) as { n: number };
      assert.is(events.n, 1, `Transfer ${t.id}: transfer_expired logged once`);
      const mails = db
        .prepare(`SELECT COUNT(*) AS n FROM mail_queue WHERE to_addr = ?`)
        .get(owner(i)['X-Remote-Email']) as { n: number };
      assert.is(mails.n, 1, `Transfer ${t.id}: its owner is told of the expiry once`);
    }
    // Nothing alive was touched: byte-exact data, statuses as they were.
    assert.is(status(kept.id), 'available');
    assert.is(sha256(fs.readFileSync(fileOnDisk(s.dir, kept.id, kept.files[0].uid))), sha256(keptData[0]));
    assert.is(status(partial.id), 'uploading');
    assert.ok(
      fs
        .readFileSync(fileOnDisk(s.dir, partial.id, partial.files[0].uid))
        .subarray(CHUNK, 2 * CHUNK)
        .equals(keptData[1].subarray(CHUNK, 2 * CHUNK)),
    );
    assert.is(status(empty.id), 'started');
    assert.ok(fresh.length > 0);
    for (const { t, data } of fresh) {
      assert.ok(
        fs.readFileSync(fileOnDisk(s.dir, t.id, t.files[0].uid)).equals(data),
        `Transfer ${t.id}, uploaded during purge, lost its data`,
      );
    }
    // No directory left that no open Transfer owns.
    const open = new Set(
      (db.prepare(`SELECT id FROM transfers WHERE status != 'closed'`).all() as { id: number }[]).map((r) => r.id),
    );
    assert.equal(
      [...tree.keys()].filter((id) => !open.has(id)),
      [],
      'orphan directories',
    );
    db.close();
    // The partial upload still finishes after all this.
    for (const off of [0, 2 * CHUNK])
      assert.is((await putChunk(s.url, partial.files[0].id, keptData[1], off, CHUNK)).status, 200);
    assert.is(
      (
        await request(s.url, 'PUT', `/file/${partial.files[0].id}`, {
          headers: asUser('alice'),
          json: { complete: true },
        })
      ).status,
      200,
    );
  } finally {
    uploading = false;
    await uploader.catch(() => {});
    await s.stop();
    fs.rmSync(s.dir, { recursive: true, force: true });
  }
});

test.run();
