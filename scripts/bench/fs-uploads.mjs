// The filesystem upload rows: ferry beside bare sinks in the same run (README: Performance).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, call, ferryCli, measure, startProcess } from './lib.mjs';
import { completeTransfer, createTransfer, deleteTransfer, uploadBare, uploadFile, uploadTus } from './clients.mjs';

/** The middle run by wall time (a median that keeps the whole run). */
const medianRun = (xs) => [...xs].sort((a, b) => a.wall - b.wall)[Math.floor(xs.length / 2)];
/** The ratio of each repetition, `a` against `b` (speed). */
const pairs = (a, b) => a.map((x, i) => b[i].wall / x.wall);
const emptyDir = (d) => fs.readdirSync(d).forEach((f) => fs.rmSync(path.join(d, f), { recursive: true, force: true }));

/** A bare sink (scripts/bench/bare-server.mjs) with `flags`, storing in a folder of its own under `dir`. */
async function startSink(dir, name, flags) {
  const d = path.join(dir, name);
  fs.mkdirSync(d);
  return startProcess(process.execPath, [path.join(ROOT, 'scripts/bench/bare-server.mjs'), d, ...flags]);
}

/**
 * Uploads of `size` bytes through the spec's procedure, 5 MiB chunks, 4 in flight, beside:
 * - the "same work" sink: positional writes, SHA-256 and CRC-32 on a worker thread reading the file back as its
 *   prefix grows, each chunk answered after an fdatasync grouped per file the way ferry groups them (budget 0.9x);
 * - the cost of durability: that sink against itself without the fdatasync, the one thing that differs
 *   (budget: at most 15 % slower, 0.85x). ferry cannot run without flushing, so the sink measures the price
 *   of the flushes alone, on the same disk and the same grouping;
 * - the plain sink `bare` (writes only, no digests, no flushes): information;
 * - the tus reference server `tus` (storing in `tusDir`), and signed against unsigned ferry, as before.
 * Upload figures on a shared two-core machine move by a quarter from one run to the next, so each side runs
 * `reps` times, the sides taking turns, and each row compares the median runs; older uploads are deleted as
 * they go (disk space). Returns ferry's last upload (the Transfer and its completion) for the download rows.
 */
export async function filesystemUploadRows({ ferry, bare, tus, tusDir, dir, source, size, reps, row }) {
  const durable = await startSink(dir, 'sink-durable', ['--digest', '--sync']);
  const digests = await startSink(dir, 'sink-digest', ['--digest']);
  try {
    const secret = JSON.parse(ferryCli(['remote-app', 'add', 'bench', '--json', '-c', ferry.config]).trim().split('\n').pop()).secret;
    const runs = { ferry: [], durable: [], digests: [], bare: [], tus: [], signed: [] };
    const fp = ferry.proc.pid;
    // Each upload starts from an empty page cache but for its source file (read back: the budget's condition).
    const fresh = { fresh: { keep: [[source, size]] } };
    const sinkRun = async (sink, r, done) => {
      if (r > 0) await call(`${sink.url}/file/big${r - 1}`, 'DELETE');
      return measure(sink.proc.pid, () => uploadBare(sink.url, `big${r}`, source, size, 4, done), fresh);
    };
    let t;
    let completed;
    for (let r = 0; r < reps; r++) {
      if (t) await deleteTransfer(ferry.url, t);
      t = await createTransfer(ferry.url, [size]);
      const upload = await measure(fp, async () => {
        await uploadFile(ferry.url, t, 0, source, 4);
        return completeTransfer(ferry.url, t);
      }, fresh);
      runs.ferry.push(upload);
      completed = upload.result;
      runs.durable.push(await sinkRun(durable, r, true));
      runs.digests.push(await sinkRun(digests, r, true));
      runs.bare.push(await sinkRun(bare, r, false));
      // The sinks did the same hashing: their digest is ferry's.
      const sha = completed.files[0].sha256;
      for (const sink of [runs.durable, runs.digests]) if (sink[r].result.sha256 !== sha) throw new Error(`sink digest ${sink[r].result.sha256} is not ferry's ${sha}`);
      emptyDir(tusDir);
      runs.tus.push(await measure(tus.proc.pid, () => uploadTus(tus.url, source, size, 4), fresh));
      const ts = await createTransfer(ferry.url, [size], secret);
      runs.signed.push(await measure(fp, () => uploadFile(ferry.url, ts, 0, source, 4, secret), fresh));
      await deleteTransfer(ferry.url, ts);
    }
    const MB = size / 1024 / 1024;
    const up = medianRun(runs.ferry);
    row(`upload ${MB} MiB vs bare sink doing the same work (writes, SHA-256 + CRC-32 on a thread, grouped fdatasync)`, up, medianRun(runs.durable), { min: 0.9, of: 'speed' }, pairs(runs.ferry, runs.durable));
    row(`cost of durability: that bare sink with its grouped fdatasync vs without (${MB} MiB)`, medianRun(runs.durable), medianRun(runs.digests), { min: 0.85, of: 'speed' }, pairs(runs.durable, runs.digests));
    row(`upload ${MB} MiB vs bare sink writing only (no digests, no fdatasync)`, up, medianRun(runs.bare), { of: 'speed' }, pairs(runs.ferry, runs.bare));
    row(`upload ${MB} MiB vs @tus/server`, up, medianRun(runs.tus), { min: 1.6, of: 'speed' }, pairs(runs.ferry, runs.tus));
    row(`upload ${MB} MiB signed vs unsigned ferry`, medianRun(runs.signed), up, { min: 0.8, of: 'speed' }, pairs(runs.signed, runs.ferry));
    return { transfer: t, completed, bareFile: `${bare.url}/file/big${reps - 1}` };
  } finally {
    await Promise.all([durable.stop(), digests.stop()]);
  }
}
