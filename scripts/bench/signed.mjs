// The signed upload rows (docs/architecture.md, Signed chunks while they stream), each beside its baseline in
// the same run: signed against unsigned ferry; FileSender's own client, filesender.py, against ferry and against
// a sink doing the same work for the same client; memory with many signed uploads at once, and with many
// connections holding bodies whose signature is not checked yet.
// Run alone: `node scripts/bench/signed.mjs [--quick]` (needs dist/ferry; SIGNED_ROWS=pairs,py,memory picks rows,
// ROUNDS=n the pairs). filesender.py is FileSender's
// scripts/client/filesender.py (3.8), not shipped with ferry: its rows run when FILESENDER_PY names it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {
  MiB,
  ROOT,
  ferryCli,
  makeFile,
  measure,
  median,
  peakRssMiB,
  resetPeak,
  startFerry,
  startProcess,
  tempDir,
} from './lib.mjs';
import { createTransfer, deleteTransfer, uploadFile } from './clients.mjs';

const GiB = 1024 * MiB;
const pairs = (a, b) => a.map((x, i) => b[i].wall / x.wall);
const medianRun = (xs) => [...xs].sort((a, b) => a.wall - b.wall)[Math.floor(xs.length / 2)];

/**
 * `rounds` alternating pairs (the order flips every round: the shared machine's load drifts), each row with
 * its ratio per round. `row(work, ferry, baseline, budget, each)` as in run.mjs.
 */
export async function signedRows({ quick, dir, source, row, rounds = 5, only = null }) {
  const want = (part) => !only || only.includes(part);
  const size = quick ? 128 * MiB : GiB;
  fs.mkdirSync(path.join(dir, 'ferry-signed'));
  const ferry = await startFerry(path.join(dir, 'ferry-signed'), { upload_chunk_size: 5 * MiB });
  try {
    const secret = JSON.parse(
      ferryCli(['remote-app', 'add', 'bench', '--json', '-c', ferry.config]).trim().split('\n').pop(),
    ).secret;
    const fresh = { fresh: { keep: [[source, size]] } };
    const fp = ferry.proc.pid;
    const runs = { signed: [], plain: [] };
    const side = (into, sign) => async () => {
      const t = await createTransfer(ferry.url, [size], sign);
      const m = await measure(fp, () => uploadFile(ferry.url, t, 0, source, 4, sign), fresh);
      m.result = { bytes: size };
      into.push(m);
      await deleteTransfer(ferry.url, t);
    };
    // One pair not counted: the first side of a run meets code not yet optimised and a disk still busy.
    for (let r = 0; want('pairs') && r <= rounds; r++) {
      const sides = [side(runs.signed, secret), side(runs.plain, null)];
      for (const s of r % 2 ? sides.reverse() : sides) await s();
    }
    runs.signed.shift();
    runs.plain.shift();
    if (want('pairs'))
      row(
        `upload ${size / MiB} MiB signed vs unsigned ferry, ${rounds} pairs`,
        medianRun(runs.signed),
        medianRun(runs.plain),
        { min: 0.85, of: 'speed' },
        pairs(runs.signed, runs.plain),
      );

    if (want('py'))
      await filesenderPyRows({ ferry, dir, size: quick ? 256 * MiB : GiB, rounds: quick ? 1 : rounds, row, quick });

    // Memory rows on a server of their own, fresh: what the rows above left in the heap is not theirs.
    await ferry.stop();
    if (!want('memory')) return;
    fs.mkdirSync(path.join(dir, 'ferry-memory'));
    const mem = await startFerry(path.join(dir, 'ferry-memory'), { upload_chunk_size: 5 * MiB });
    try {
      const memSecret = JSON.parse(
        ferryCli(['remote-app', 'add', 'bench', '--json', '-c', mem.config]).trim().split('\n').pop(),
      ).secret;
      // Many signed uploads at once: each chunk's HMAC is computed as it streams, nothing held whole.
      const many = quick ? 20 : 60;
      const each = quick ? 10 * MiB : 20 * MiB;
      const ts = [];
      for (let i = 0; i < many; i++) ts.push(await createTransfer(mem.url, [each]));
      const burst = await measure(
        mem.proc.pid,
        () => Promise.all(ts.map((t) => uploadFile(mem.url, t, 0, source, 1, memSecret))),
        { fresh: { keep: [[source, each]] } },
      );
      for (const t of ts) await deleteTransfer(mem.url, t);
      row(`${many} signed uploads of ${each / MiB} MiB at once`, burst, null, { rss: 300, bytes: many * each });

      // Connections holding signed-looking bodies: all but the last byte of a 5 MiB chunk sent, never finished.
      const held = quick ? 50 : 200;
      row(
        `${held} connections holding signed chunk bodies not yet verified (all but their last byte)`,
        await holdingBodies(mem, memSecret, held),
        null,
        { rss: 300, held: true },
      );
    } finally {
      await mem.stop();
    }
  } finally {
    await ferry.stop();
  }
}

/** Opens `count` connections sending signed chunks with a wrong signature, all but the last byte; peak RSS while held. */
async function holdingBodies(ferry, _secret, count) {
  const files = [];
  for (let i = 0; i < 10; i++) files.push((await createTransfer(ferry.url, [5 * MiB])).files[0].id);
  const u = new URL(ferry.url);
  const body = Buffer.alloc(5 * MiB, 7);
  const pid = ferry.proc.pid;
  resetPeak(pid);
  const before = peakRssMiB(pid);
  const socks = [];
  const t0 = Date.now();
  for (let i = 0; i < count; i++) {
    const ts = Math.floor(Date.now() / 1000);
    const p = `/file/${files[i % files.length]}/chunk/0?remote_application=bench&remote_user=bench&timestamp=${ts}&signature=${'0'.repeat(40)}`;
    const sock = net.connect(Number(u.port), u.hostname);
    sock.on('error', () => {});
    sock.write(
      `PUT ${p} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    sock.write(body.subarray(0, body.length - 1));
    socks.push(sock);
  }
  // Held for a while: what the server reads of them meanwhile is what it holds.
  await new Promise((r) => setTimeout(r, 5000));
  const rss = peakRssMiB(pid);
  for (const s of socks) s.destroy();
  await new Promise((r) => setTimeout(r, 500));
  return { wall: (Date.now() - t0) / 1000, rss, cpu: NaN, rssBefore: before };
}

/**
 * filesender.py (4 threads) sending one file to ferry, and the same client sending it to the same-work sink
 * (bare-server.mjs --filesender: the REST calls filesender.py makes, each signature checked as its body
 * streams, O_DSYNC positional writes, SHA-256 and CRC-32 on a thread). Server CPU seconds per GiB: budget 3.5.
 */
async function filesenderPyRows({ ferry, dir, size, rounds, row }) {
  const client = process.env.FILESENDER_PY;
  const work = `filesender.py (4 threads) sending ${size / MiB} MiB: ferry vs the same-work sink fed by the same client`;
  if (!client || !fs.existsSync(client)) {
    row(work, null, null, { missing: 'FILESENDER_PY=<path to FileSender 3.8 scripts/client/filesender.py>' });
    return;
  }
  const file = path.join(dir, 'fs-py.bin');
  makeFile(file, size);
  fs.mkdirSync(path.join(dir, 'sink-fs'));
  const sinkSecret = 'a'.repeat(64);
  const sink = await startProcess(process.execPath, [
    path.join(ROOT, 'scripts/bench/bare-server.mjs'),
    path.join(dir, 'sink-fs'),
    '--digest',
    '--sync',
    '--filesender',
    sinkSecret,
  ]);
  try {
    // A user's own secret (remote-user mode), as filesender.py's users have: made by GET /user.
    const cfg = await fetch(`${ferry.url}/user`, {
      headers: { 'X-Remote-User': 'pyuser', 'X-Remote-Email': 'pyuser@example.org' },
    }).then((r) => r.json());
    const apikey = cfg.remote_config.split('|')[2];
    const fresh = { fresh: { keep: [[file, size]] } };
    const runs = { ferry: [], sink: [] };
    const send = (base, key) => runPy(client, dir, { base: `${base}/rest.php`, user: 'pyuser', apikey: key, file });
    for (let r = 0; r <= rounds; r++) {
      const sides = [
        async () => runs.ferry.push(await measure(ferry.proc.pid, () => send(ferry.url, apikey), fresh)),
        async () => runs.sink.push(await measure(sink.proc.pid, () => send(sink.url, sinkSecret), fresh)),
      ];
      for (const s of r % 2 ? sides.reverse() : sides) await s();
    }
    runs.ferry.shift();
    runs.sink.shift();
    for (const x of [...runs.ferry, ...runs.sink]) x.result = { bytes: size };
    const cpu = runs.ferry.map((x) => x.cpuS / (size / GiB));
    row(
      `${work}, ${rounds} pairs (ferry's CPU s/GiB per run: ${cpu.map((c) => c.toFixed(2)).join(', ')})`,
      medianRun(runs.ferry),
      medianRun(runs.sink),
      { of: 'speed', cpuPerGiB: 3.5, cpuMedian: median(cpu) },
      pairs(runs.ferry, runs.sink),
    );
  } finally {
    await sink.stop();
  }
}

/** One filesender.py upload (its own process; its ini file in a home of its own). */
function runPy(client, dir, { base, user, apikey, file }) {
  const home = path.join(dir, 'py-home');
  fs.mkdirSync(path.join(home, '.filesender'), { recursive: true });
  fs.writeFileSync(
    path.join(home, '.filesender', 'filesender.py.ini'),
    `[system]\nbase_url = ${base}\ndefault_transfer_days_valid = 10\n[user]\nusername = ${user}\napikey = ${apikey}\n`,
  );
  return new Promise((resolve, reject) => {
    const p = spawn('python3', [client, '-r', 'r@example.org', '-f', `${user}@example.org`, '--threads', '4', file], {
      env: { ...process.env, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('exit', (code) =>
      code === 0 ? resolve({}) : reject(new Error(`filesender.py exited ${code}: ${out.slice(-2000)}`)),
    );
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { reexecOnProjectNode } = await import('../project-node.mjs');
  await reexecOnProjectNode();
  const quick = process.argv.includes('--quick');
  const dir = tempDir();
  const rows = [];
  try {
    const source = path.join(dir, 'source.bin');
    makeFile(source, quick ? 128 * MiB : GiB);
    await signedRows({
      quick,
      dir,
      source,
      row: (work, f, b, budget, each = []) => rows.push({ work, f, b, budget, each }),
      rounds: Number(process.env.ROUNDS ?? (quick ? 2 : 5)),
      only: process.env.SIGNED_ROWS?.split(',') ?? null,
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const { work, f, b, budget, each } of rows) {
    if (budget.missing) {
      console.log(`${work}: not measured (needs ${budget.missing})`);
      continue;
    }
    const mb = (x) => (x.result?.bytes ?? budget.bytes ?? 0) / MiB / x.wall;
    const parts = [`${work}:`];
    if (budget.of === 'speed')
      parts.push(
        `${mb(f).toFixed(0)} vs ${mb(b).toFixed(0)} MB/s, ratio ${median(each).toFixed(2)} (runs ${each.map((x) => x.toFixed(2)).join(', ')}), min ${budget.min ?? '-'}`,
      );
    if (budget.of === 'speed')
      parts.push(
        `CPU s/GiB ${(f.cpuS / ((f.result?.bytes ?? 0) / GiB)).toFixed(2)} / ${(b.cpuS / ((b.result?.bytes ?? 0) / GiB)).toFixed(2)}`,
      );
    if (budget.bytes) parts.push(`${mb(f).toFixed(0)} MB/s, CPU s/GiB ${(f.cpuS / (budget.bytes / GiB)).toFixed(2)}`);
    parts.push(`peak RSS ${f.rss} MiB${b ? ` / ${b.rss}` : ''}${budget.rss ? ` (budget ${budget.rss})` : ''}`);
    console.log(parts.join(' '));
  }
}
