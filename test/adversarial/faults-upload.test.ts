import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { startBinary, BinaryServer } from '../helpers/binary';
import { request } from '../helpers/server';
import { alice, createTransfer, download, fileOnDisk, openChecked, putChunk, rng, sleep, SP } from './faults-fixture';
import { patternBytes, sha256 } from '../helpers/upload-client';

// test/e2e/upload-resume.test.ts kills once, halfway through one 1 GiB file sent in order. Here: several files,
// chunks in random order with many in flight, killed at random moments over several rounds, and every recorded
// range (not just the acknowledged ones) is checked byte for byte on disk after each crash.
const CHUNK = 256 * 1024;
const ROUNDS = 5;
const IN_FLIGHT = 8;
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 100_000);

interface Chunk {
  file: number;
  offset: number;
  size: number;
}

test(`SIGKILL while chunks are written, ${ROUNDS} rounds: the DB opens, nothing acknowledged is lost, the upload finishes right (seed ${SEED})`, async () => {
  const random = rng(SEED);
  const datas = [patternBytes('a', 6 * 1024 * 1024), patternBytes('b', 13 * CHUNK + 17), patternBytes('c', CHUNK)];
  let s: BinaryServer = await startBinary({ config: { ...SP, upload_chunk_size: CHUNK } });
  try {
    const t = await createTransfer(
      s.url,
      datas.map((d, i) => ({ name: `f${i}.bin`, size: d.length })),
      ['r@example.org'],
    );
    const files: { id: number; uid: string }[] = t.files;
    const acknowledged: Chunk[] = [];
    const recorded = async () => {
      const out: [number, number][][] = [];
      for (const f of files) out.push((await request(s.url, 'GET', `/file/${f.id}`, { headers: alice })).json.ranges);
      return out;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const ranges = await recorded();
      const pending: Chunk[] = [];
      datas.forEach((d, file) => {
        for (let offset = 0; offset < d.length; offset += CHUNK) {
          const size = Math.min(CHUNK, d.length - offset);
          if (!ranges[file].some(([a, b]) => a <= offset && offset + size <= b)) pending.push({ file, offset, size });
        }
      });
      pending.sort(() => random() - 0.5);
      // Kill after a random number of acknowledgements, then a random few ms more: mid-write, mid-record or idle.
      const killAfter = Math.floor((random() * pending.length) / 4);
      let acks = 0;
      const refused: string[] = [];
      const worker = async () => {
        for (let c = pending.shift(); c; c = pending.shift()) {
          const r = await putChunk(s.url, files[c.file].id, datas[c.file], c.offset, c.size).catch(() => null);
          if (!r) return; // the server is gone
          if (r.status !== 200) refused.push(`${r.status} ${r.text}`);
          else acknowledged.push(c), acks++;
        }
      };
      const sending = Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      const deadline = Date.now() + 20_000;
      while (acks < killAfter && pending.length > 0 && Date.now() < deadline) await sleep(2);
      await sleep(random() * 8);
      await s.kill9();
      await sending;
      assert.equal(refused, [], `round ${round}: chunks refused before the kill`);

      const db = openChecked(s.dir);
      db.close();
      s = await startBinary({ dir: s.dir });
      const after = await recorded();
      for (const c of acknowledged) {
        assert.ok(
          after[c.file].some(([a, b]) => a <= c.offset && c.offset + c.size <= b),
          `round ${round}: acknowledged chunk ${c.file}@${c.offset} lost`,
        );
      }
      // Recorded means written: every byte a range claims is on disk and right, acknowledged or not.
      files.forEach((f, i) => {
        if (after[i].length === 0) return; // no chunk of it arrived yet
        const disk = fs.readFileSync(fileOnDisk(s.dir, t.id, f.uid));
        for (const [a, b] of after[i])
          assert.ok(disk.subarray(a, b).equals(datas[i].subarray(a, b)), `round ${round}: file ${i} bytes ${a}-${b}`);
      });
      // An incomplete File cannot be completed, nor its Transfer made available.
      const incomplete = files.findIndex(
        (_f, i) => !(after[i].length === 1 && after[i][0][0] === 0 && after[i][0][1] === datas[i].length),
      );
      if (incomplete >= 0) {
        assert.is(
          (await request(s.url, 'PUT', `/file/${files[incomplete].id}`, { headers: alice, json: { complete: true } }))
            .status,
          409,
        );
        assert.is(
          (await request(s.url, 'PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } })).status,
          409,
        );
      }
    }

    // Resume what is still missing, complete, and download what a recipient gets.
    const last = await recorded();
    for (const [i, d] of datas.entries()) {
      for (let offset = 0; offset < d.length; offset += CHUNK) {
        const size = Math.min(CHUNK, d.length - offset);
        if (last[i].some(([a, b]) => a <= offset && offset + size <= b)) continue;
        const r = await putChunk(s.url, files[i].id, d, offset, size);
        assert.is(r.status, 200, r.text);
      }
      assert.is(
        (await request(s.url, 'PUT', `/file/${files[i].id}`, { headers: alice, json: { complete: true } })).status,
        200,
      );
    }
    const done = await request(s.url, 'PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
    assert.is(done.status, 200, done.text);
    for (const [i, d] of datas.entries()) {
      const f = (await request(s.url, 'GET', `/file/${files[i].id}`, { headers: alice })).json;
      assert.is(f.sha256, sha256(d), `file ${i} sha256`);
      assert.ok((await download(s.url, done.json.recipients[0].token, files[i].id)).equals(d), `file ${i} downloaded`);
    }
    // The CRC-32 is not in the REST answer but goes into every ZIP download.
    const db = openChecked(s.dir);
    const crcs = db
      .prepare('SELECT crc32 FROM files WHERE transfer_id = ? ORDER BY id')
      .all(t.id)
      .map((r: any) => r.crc32);
    db.close();
    assert.equal(
      crcs,
      datas.map((d) => (zlib as unknown as { crc32(b: Buffer): number }).crc32(d)),
    );
  } finally {
    await s.stop();
    fs.rmSync(s.dir, { recursive: true, force: true });
  }
});

test.run();
