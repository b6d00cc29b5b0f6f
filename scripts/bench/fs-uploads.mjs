// The filesystem upload rows: ferry beside bare sinks in the same run (docs/performance.md).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, call, ferryCli, measure, startFerry, startProcess } from './lib.mjs';
import {
  completeTransfer,
  createTransfer,
  deleteTransfer,
  uploadBare,
  uploadFile,
  uploadTus,
  CHUNK,
  USER,
} from './clients.mjs';

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

/** Ferry's durable and unsynced uploads (and the sinks') run at least this many times, even in a quick run. */
const DURABILITY_PAIRS = 7;

/**
 * libeatmydata (Debian's eatmydata package), preloaded into a process, makes fsync and fdatasync no-ops and
 * drops O_SYNC and O_DSYNC from its opens: the same binary, minus the one thing that makes it durable.
 */
function eatMyData() {
  for (const dir of ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib']) {
    const lib = path.join(dir, 'libeatmydata.so');
    if (fs.existsSync(lib)) return lib;
  }
  return null;
}

/** The flags of the descriptors process `pid` holds open under `dir` (from /proc/<pid>/fdinfo). */
function openFlagsUnder(pid, dir) {
  const flags = [];
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target = '';
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (!target.startsWith(dir + path.sep)) continue;
    const m = /^flags:\s+([0-7]+)$/m.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'));
    if (m) flags.push(parseInt(m[1], 8));
  }
  return flags;
}

/**
 * Checks that `server` opens its upload files O_DSYNC (`durable`) or not: one chunk of an upload that is left
 * unfinished, whose descriptor stays open for the next chunk. A row comparing the two means nothing otherwise.
 */
async function checkDurability(server, dataDir, durable) {
  const t = await createTransfer(server.url, [2 * CHUNK]);
  const f = t.files[0];
  const body = Buffer.alloc(CHUNK);
  const r = await call(
    `${server.url}/file/${f.id}/chunk/0`,
    'PUT',
    {
      'content-type': 'application/octet-stream',
      'X-Service-File-Size': String(f.size),
      'X-Service-Chunk-Size': String(CHUNK),
      ...USER,
    },
    body,
  );
  if (r.status !== 200) throw new Error(`chunk: ${r.status} ${r.body}`);
  const flags = openFlagsUnder(server.proc.pid, dataDir);
  await deleteTransfer(server.url, t);
  const dsync = flags.map((f) => (f & fs.constants.O_DSYNC) === fs.constants.O_DSYNC);
  if (dsync.length === 0 || dsync.some((d) => d !== durable)) {
    throw new Error(
      `expected the upload's descriptor ${durable ? 'with' : 'without'} O_DSYNC, found flags ${flags.map((f) => f.toString(8)).join(', ') || 'none'}`,
    );
  }
}

/**
 * Uploads of `size` bytes through the spec's procedure, 5 MiB chunks, 4 in flight, beside:
 * - the "same work" sink: positional writes into a file opened O_DSYNC as ferry's are, SHA-256 and CRC-32 on a
 *   worker thread reading the file back as its prefix grows (budget 0.9x);
 * - the cost of durability: ferry against the same binary with libeatmydata preloaded, which makes its writes
 *   stop waiting for the disk (budget: at most 15 % slower, 0.85x); and, for information, the same-work sink
 *   against itself without O_DSYNC (the disk's price alone, without ferry's work to hide it);
 * - the plain sink `bare` (writes only, no digests, no O_DSYNC): information;
 * - the tus reference server `tus` (storing in `tusDir`), and signed against unsigned ferry, as before.
 * Upload figures on a shared two-core machine move by a quarter from one run to the next, so the sides run in
 * rounds, taking turns: first the budget rows' sides (ferry, its twin and the two same-work sinks) at least
 * DURABILITY_PAIRS times (they are short), then `reps` rounds of ferry beside bare, tus and signed ferry. Each
 * row gives the median of its paired runs' ratios; older uploads are deleted as they go (disk space). Returns
 * ferry's last upload (the Transfer and its completion) and a bare file of the same size for the download rows.
 */
export async function filesystemUploadRows({ ferry, bare, tus, tusDir, dir, source, size, reps, row }) {
  const durable = await startSink(dir, 'sink-durable', ['--digest', '--sync']);
  const digests = await startSink(dir, 'sink-digest', ['--digest']);
  const lib = eatMyData();
  let unsynced = null;
  if (lib) {
    fs.mkdirSync(path.join(dir, 'ferry-unsynced'));
    unsynced = await startFerry(path.join(dir, 'ferry-unsynced'), {}, { LD_PRELOAD: lib });
  }
  try {
    await checkDurability(ferry, path.join(dir, 'ferry', 'data', 'files'), true);
    if (unsynced) await checkDurability(unsynced, path.join(dir, 'ferry-unsynced', 'data', 'files'), false);
    const secret = JSON.parse(
      ferryCli(['remote-app', 'add', 'bench', '--json', '-c', ferry.config]).trim().split('\n').pop(),
    ).secret;
    const runs = { ferry: [], unsynced: [], durable: [], digests: [], plain: [], bare: [], tus: [], signed: [] };
    const fp = ferry.proc.pid;
    // Each upload starts from an empty page cache but for its source file (read back: the budget's condition).
    const fresh = { fresh: { keep: [[source, size]] } };
    // A side that does not wait for the disk leaves its upload in the page cache. Kept, it would be written back
    // by the `sync` before the next side's run, and that side would start on a disk still busy with gigabytes.
    // So those uploads are deleted at once, before they reach the disk. The durable sides' uploads are on the
    // disk already, and each deletes its last one before its own run.
    const sinkRun = async (sink, r, done, { synced = false } = {}) => {
      if (synced && r > 0) await call(`${sink.url}/file/big${r - 1}`, 'DELETE');
      const run = await measure(sink.proc.pid, () => uploadBare(sink.url, `big${r}`, source, size, 4, done), fresh);
      if (!synced) await call(`${sink.url}/file/big${r}`, 'DELETE');
      return run;
    };
    const ferryRun = async (server) => {
      const t = await createTransfer(server.url, [size]);
      const upload = await measure(
        server.proc.pid,
        async () => {
          await uploadFile(server.url, t, 0, source, 4);
          return completeTransfer(server.url, t);
        },
        fresh,
      );
      return { t, upload };
    };
    let t;
    let completed;
    const ferrySide = (into) => async () => {
      if (t) await deleteTransfer(ferry.url, t);
      let upload;
      ({ t, upload } = await ferryRun(ferry));
      into.push(upload);
      completed = upload.result;
    };
    /**
     * Runs the sides of a round back to back, in the reverse order every other round: on this shared machine
     * the disk's speed drifts within a round, and a side that always ran first would always meet the same point
     * of the drift (ferry's same-work pairs gave 0.70-0.93 in the rounds where it ran first and 0.88-1.41 where
     * it ran last, in one run where the other baselines shared the rounds).
     */
    const round = async (r, sides) => {
      for (const side of r % 2 === 1 ? [...sides].reverse() : sides) await side();
    };
    // The budget rows' pairs, in rounds of their own, after one round not counted: the first side of a run
    // starts on a disk still writing back the source file, and on code that has run no request yet (the
    // first round's same-work pair gave 0.70-0.82 in three full runs whose other rounds gave medians of
    // 0.89-0.91).
    for (let r = 0; r <= Math.max(reps, DURABILITY_PAIRS); r++) {
      await round(r, [
        ferrySide(runs.ferry),
        async () => {
          if (!unsynced) return;
          const u = await ferryRun(unsynced);
          runs.unsynced.push(u.upload);
          await deleteTransfer(unsynced.url, u.t);
        },
        async () => runs.durable.push(await sinkRun(durable, r, true, { synced: true })),
        async () => runs.digests.push(await sinkRun(digests, r, true)),
      ]);
      // The sinks did the same hashing: their digest is ferry's.
      const sha = completed.files[0].sha256;
      for (const sink of [runs.durable, runs.digests])
        if (sink[r].result.sha256 !== sha)
          throw new Error(`sink digest ${sink[r].result.sha256} is not ferry's ${sha}`);
    }
    for (const side of ['ferry', 'unsynced', 'durable', 'digests']) runs[side].shift();
    // Then the other baselines, each paired with a ferry upload of its round.
    for (let r = 0; r < reps; r++) {
      await round(r, [
        ferrySide(runs.plain),
        async () => runs.bare.push(await sinkRun(bare, r, false)),
        async () => {
          runs.tus.push(await measure(tus.proc.pid, () => uploadTus(tus.url, source, size, 4), fresh));
          emptyDir(tusDir);
        },
        async () => {
          const ts = await createTransfer(ferry.url, [size], secret);
          runs.signed.push(await measure(fp, () => uploadFile(ferry.url, ts, 0, source, 4, secret), fresh));
          await deleteTransfer(ferry.url, ts);
        },
      ]);
    }
    // The download rows' bare file (not measured).
    await uploadBare(bare.url, 'download', source, size, 4, false);
    const MB = size / 1024 / 1024;
    const up = medianRun(runs.ferry);
    const upReps = runs.plain;
    const upOfReps = medianRun(upReps);
    row(
      `upload ${MB} MiB vs bare sink doing the same work (O_DSYNC writes, SHA-256 + CRC-32 on a thread)`,
      up,
      medianRun(runs.durable),
      { min: 0.9, of: 'speed' },
      pairs(runs.ferry, runs.durable),
    );
    if (unsynced) {
      row(
        `cost of durability: ferry vs the same binary with its writes not waiting for the disk (libeatmydata), ${MB} MiB`,
        up,
        medianRun(runs.unsynced),
        { min: 0.85, of: 'speed' },
        pairs(runs.ferry, runs.unsynced),
      );
    } else {
      row(
        `cost of durability: ferry vs the same binary with its writes not waiting for the disk (libeatmydata), ${MB} MiB`,
        null,
        null,
        { missing: 'apt-get install -y eatmydata' },
      );
    }
    row(
      `the disk's price alone: the same-work sink with O_DSYNC vs without (${MB} MiB)`,
      medianRun(runs.durable),
      medianRun(runs.digests),
      { of: 'speed' },
      pairs(runs.durable, runs.digests),
    );
    row(
      `upload ${MB} MiB vs bare sink writing only (no digests, no O_DSYNC)`,
      upOfReps,
      medianRun(runs.bare),
      { of: 'speed' },
      pairs(upReps, runs.bare),
    );
    row(
      `upload ${MB} MiB vs @tus/server`,
      upOfReps,
      medianRun(runs.tus),
      { min: 1.6, of: 'speed' },
      pairs(upReps, runs.tus),
    );
    row(
      `upload ${MB} MiB signed vs unsigned ferry`,
      medianRun(runs.signed),
      upOfReps,
      { min: 0.85, of: 'speed' },
      pairs(runs.signed, upReps),
    );
    return { transfer: t, completed, bareFile: `${bare.url}/file/download` };
  } finally {
    await Promise.all([durable.stop(), digests.stop(), unsynced?.stop()]);
  }
}
