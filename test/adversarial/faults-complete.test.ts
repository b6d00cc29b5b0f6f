import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { startBinary, BinaryServer } from '../helpers/binary';
import { freePort, request } from '../helpers/server';
import { startTestSink, addressOf } from '../helpers/mail';
import {
  alice,
  createTransfer,
  download,
  fileOnDisk,
  openChecked,
  rng,
  sleep,
  SP,
  uploadWhole,
} from './faults-fixture';
import { patternBytes, sha256 } from '../helpers/upload-client';

const CHUNK = 1024 * 1024;
const FILES = 4;
const FILE_SIZE = 4 * CHUNK;
const RECIPIENTS = 40;
const ATTEMPTS = 8;
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 100_000);

interface Attempt {
  transfer: any;
  datas: Buffer[];
}

const addressOfRecipient = (attempt: number, i: number) => `r${attempt}-${i}@example.org`;

/** Completes every File then the Transfer, as an uploading client does; resolves to the last answer's status. */
async function completeAll(url: string, t: any): Promise<number> {
  const files = await Promise.all(
    t.files.map((f: any) => request(url, 'PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })),
  );
  for (const r of files) if (r.status !== 200) return r.status;
  return (await request(url, 'PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } })).status;
}

test(`SIGKILL while files and the Transfer are completed, ${ATTEMPTS} attempts: never available with a file missing or short; each mail queued once and sent once (seed ${SEED})`, async () => {
  const random = rng(SEED);
  // Mail fails while the crashes happen (nothing listens there), so what is queued is still in the queue after.
  const deadSmtp = `smtp://127.0.0.1:${await freePort()}`;
  const config = { ...SP, upload_chunk_size: CHUNK, mail: { transport: deadSmtp } };
  let s: BinaryServer = await startBinary({ config });
  const sink = await startTestSink();
  const attempts: Attempt[] = [];
  try {
    // One undisturbed run says how long a completion takes; the kills are spread over that time.
    const upload = async (n: number): Promise<Attempt> => {
      const datas = Array.from({ length: FILES }, (_, i) => patternBytes(`${n}/${i}`, FILE_SIZE - i * 1000));
      const recipients = Array.from({ length: RECIPIENTS }, (_, i) => addressOfRecipient(n, i));
      const transfer = await createTransfer(
        s.url,
        datas.map((d, i) => ({ name: `f${i}`, size: d.length })),
        recipients,
      );
      for (const [i, d] of datas.entries()) await uploadWhole(s.url, transfer.files[i].id, d, CHUNK);
      return { transfer, datas };
    };
    const calibration = await upload(0);
    let t0 = Date.now();
    for (const f of calibration.transfer.files)
      assert.is(
        (await request(s.url, 'PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status,
        200,
      );
    const filesTime = Date.now() - t0;
    t0 = Date.now();
    assert.is(
      (
        await request(s.url, 'PUT', `/transfer/${calibration.transfer.id}`, {
          headers: alice,
          json: { complete: true },
        })
      ).status,
      200,
    );
    const transferTime = Date.now() - t0;
    attempts.push(calibration);

    for (let n = 1; n <= ATTEMPTS; n++) {
      const a = await upload(n);
      attempts.push(a);
      // Half the kills land anywhere in the sequence, half inside PUT /transfer itself (files already complete).
      const transferOnly = n % 2 === 0;
      if (transferOnly)
        for (const f of a.transfer.files)
          assert.is(
            (await request(s.url, 'PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status,
            200,
          );
      t0 = Date.now();
      const _running = (
        transferOnly
          ? request(s.url, 'PUT', `/transfer/${a.transfer.id}`, { headers: alice, json: { complete: true } }).then(
              (r) => r.status,
            )
          : completeAll(s.url, a.transfer)
      ).catch(() => 'cut');
      await sleep(random() * (transferOnly ? transferTime : filesTime + transferTime));
      await s.kill9();
      s = await startBinary({ dir: s.dir });
      await checkConsistent(s, a, n);
    }
    // A later crash has not disturbed an earlier Transfer either.
    for (const [n, a] of attempts.entries()) await checkConsistent(s, a, n);

    // SMTP comes back. What the retry schedule would have done by now is made due at once.
    await s.stop();
    const db = openChecked(s.dir);
    db.prepare(`UPDATE mail_queue SET next_attempt = 0 WHERE status = 'pending'`).run();
    assert.equal(db.prepare(`SELECT status, COUNT(*) AS n FROM mail_queue GROUP BY status`).all(), [
      { status: 'pending', n: RECIPIENTS * attempts.length },
    ]);
    db.close();
    s = await startBinary({ dir: s.dir, config: { ...config, mail: { transport: sink.url } } });
    const mails = await sink.waitFor(RECIPIENTS * attempts.length, 60_000);
    await sleep(300); // a second copy would arrive right behind
    const to = (await sink.messages()).map((m) => addressOf(m.to)).sort();
    const expected = attempts
      .flatMap((_a, n) => Array.from({ length: RECIPIENTS }, (_, i) => addressOfRecipient(n, i)))
      .sort();
    assert.is(mails.length, expected.length);
    assert.equal(to, expected, 'every recipient of every Transfer got exactly one mail');
  } finally {
    await s.stop();
    await sink.close();
    fs.rmSync(s.dir, { recursive: true, force: true });
  }
});

/**
 * After a crash a Transfer is either not available (nothing mailed yet; completing again works) or available
 * with every File complete, its digest right and its bytes downloadable, and one mail queued per recipient.
 */
async function checkConsistent(s: BinaryServer, a: Attempt, n: number): Promise<void> {
  const label = `attempt ${n}`;
  let t = (await request(s.url, 'GET', `/transfer/${a.transfer.id}`, { headers: alice })).json;
  const queued = () => {
    const db = openChecked(s.dir);
    const rows = db
      .prepare(
        `SELECT to_addr FROM mail_queue WHERE target_type = 'Recipient' AND target_id IN (SELECT id FROM recipients WHERE transfer_id = ?) ORDER BY to_addr`,
      )
      .all(a.transfer.id) as { to_addr: string }[];
    db.close();
    return rows.map((r) => r.to_addr);
  };
  if (t.status !== 'available') {
    assert.equal(queued(), [], `${label}: mail about a Transfer that is not available`);
    assert.is(await completeAll(s.url, t), 200, `${label}: completing again after the crash`);
    t = (await request(s.url, 'GET', `/transfer/${a.transfer.id}`, { headers: alice })).json;
    assert.is(t.status, 'available');
  }
  const token = t.recipients[0].token;
  for (const [i, f] of t.files.entries()) {
    const d = a.datas[i];
    assert.ok(f.complete, `${label}: file ${i} complete`);
    assert.is(f.sha256, sha256(d), `${label}: file ${i} sha256`);
    assert.is(fs.statSync(fileOnDisk(s.dir, t.id, f.uid)).size, d.length);
    assert.ok((await download(s.url, token, f.id)).equals(d), `${label}: file ${i} downloaded`);
  }
  const expected = Array.from({ length: RECIPIENTS }, (_, i) => addressOfRecipient(n, i)).sort();
  assert.equal(queued(), expected, `${label}: one mail queued per recipient`);
}

test.run();
