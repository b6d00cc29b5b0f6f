// The `GET /transfer/{id}` latency row (row 7 of `npm run bench`): many transfers in ferry's SQLite database,
// 32 clients, p99 over windows, beside a bare node:http server that spends the same CPU per request
// (scripts/bench/busy-server.mjs) and is loaded the same way, window for window. On a shared 2-core machine a
// window's p99 follows what else the cores do; the baseline in the same windows says how much of the tail is
// the machine's (docs/performance.md, "The ZIP row's memory and the latency row's tail").
// Standalone: node scripts/bench/latency.mjs [--transfers N] [--windows N] [--seconds N] [--warm N]
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { haveWrk, measure, nodeLatency, startFerry, startProcess, tempDir, wrkLatency, ROOT } from './lib.mjs';
import { USER } from './clients.mjs';
import { reexecOnProjectNode } from '../project-node.mjs';

/**
 * Adds `count` transfers (one file, one recipient each) to a stopped server's database, transfer i owned by
 * `ownerOf(i)` ([user id, email]: by default one in a hundred the bench user's, the others spread over 500
 * users); returns the ids of the bench user's.
 */
export function seedTransfers(
  dbFile,
  count,
  ownerOf = (i) => (i % 100 === 0 ? ['bench', 'x@example.org'] : [`user${i % 500}`, 'x@example.org']),
) {
  const db = new Database(dbFile);
  const now = Math.floor(Date.now() / 1000);
  const ins = db.prepare(
    `INSERT INTO transfers (user_id, user_email, subject, options, status, created, expires) VALUES (?, ?, ?, '[]', 'available', ?, ?)`,
  );
  const insFile = db.prepare(
    `INSERT INTO files (transfer_id, uid, name, size, created, complete) VALUES (?, lower(hex(randomblob(16))), ?, 1000, ?, 1)`,
  );
  const insRec = db.prepare(
    `INSERT INTO recipients (transfer_id, email, token, created) VALUES (?, ?, lower(hex(randomblob(16))), ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const id = Number(ins.run(...ownerOf(i), `t${i}`, now, now + 86400).lastInsertRowid);
      insFile.run(id, `file${i}.bin`, now);
      insRec.run(id, `r${i}@example.org`, now);
    }
  })();
  const ids = db
    .prepare(`SELECT id FROM transfers WHERE user_id = 'bench'`)
    .all()
    .map((r) => r.id);
  db.close();
  return ids;
}

/** The middle one of `xs` ordered by `key` (a median that keeps the whole window). */
const medianBy = (xs, key) => [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)];

/**
 * 32 clients on `server` for one window (`warm`: the warm-up's length), measured as lib's measure does. The load
 * comes from wrk (Debian package) when it is installed: node:http's client needs most of a core at these rates,
 * on the two cores the server uses too, and then measures itself.
 */
function loadWindow(server, paths, { warmS, seconds, requests = 2000 }, warm = false) {
  return measure(server.proc.pid, async () =>
    haveWrk()
      ? wrkLatency(server.url, paths, USER, 32, warm ? warmS : seconds)
      : nodeLatency(server.url, paths, USER, 32, warm ? 2000 : requests),
  ).then((w) => Object.assign(w, w.result));
}

/**
 * Loads `server` (a running ferry, or any server answering `paths`) with 32 clients: a warm-up, then `windows`
 * measured windows. Returns the window with the median p99, with all windows in `windows`.
 */
export async function latencyWindows(server, paths, opts) {
  await loadWindow(server, paths, opts, true);
  const ws = [];
  for (let r = 0; r < opts.windows; r++) ws.push(await loadWindow(server, paths, opts));
  return { ...medianBy(ws, (w) => w.p99), windows: ws, client: haveWrk() ? 'wrk' : 'node:http client' };
}

/**
 * Ferry on `ferryDir` (already seeded) and the busy baseline at ferry's CPU per request (from ferry's warm-up)
 * and answer size, their windows taking turns so that a change in the machine's load hits both. Returns
 * { ferry, bare, ratios }: each side's median window (by p99) and the p99 ratio of each pair of windows.
 */
export async function latencyAgainstBaseline(ferryDir, ids, opts) {
  const paths = ids.map((id) => `/transfer/${id}`);
  const ferry = await startFerry(ferryDir);
  let busy;
  try {
    const res = await fetch(`${ferry.url}${paths[0]}`, { headers: USER });
    const bodyBytes = (await res.arrayBuffer()).byteLength;
    const warm = await loadWindow(ferry, paths, opts, true);
    const cpuUs = (warm.cpuS / warm.requests) * 1e6;
    busy = await startProcess(process.execPath, [
      path.join(ROOT, 'scripts/bench/busy-server.mjs'),
      '--cpu-us',
      String(cpuUs),
      '--body-bytes',
      String(bodyBytes),
    ]);
    await loadWindow(busy, paths, opts, true);
    const fs_ = [];
    const bs = [];
    for (let r = 0; r < opts.windows; r++) {
      fs_.push(await loadWindow(ferry, paths, opts));
      bs.push(await loadWindow(busy, paths, opts));
    }
    const side = (ws) => ({ ...medianBy(ws, (w) => w.p99), windows: ws });
    const client = haveWrk() ? 'wrk' : 'node:http client';
    return {
      ferry: { ...side(fs_), cpuUs, client },
      bare: side(bs),
      ratios: fs_.map((f, i) => f.p99 / bs[i].p99),
    };
  } finally {
    await busy?.stop();
    await ferry.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // better-sqlite3 is built for the Node that ships in dist/ferry.
  await reexecOnProjectNode();
  const arg = (name, d) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : d);
  const transfers = arg('--transfers', 5000);
  const dir = tempDir();
  try {
    const ferryDir = path.join(dir, 'ferry');
    fs.mkdirSync(ferryDir);
    // A first start creates the database and its tables; the rows go in while it is stopped.
    await (await startFerry(ferryDir)).stop();
    const ids = seedTransfers(path.join(ferryDir, 'data', 'ferry.db'), transfers);
    const r = await latencyAgainstBaseline(ferryDir, ids, {
      warmS: arg('--warm', 10),
      seconds: arg('--seconds', 5),
      windows: arg('--windows', 3),
    });
    const { median } = await import('./lib.mjs');
    const show = (w) =>
      `p50 ${w.p50.toFixed(1)}, p99 ${w.p99.toFixed(1)} ms, ${(w.requests / w.wall).toFixed(0)} req/s, steal ${w.steal.toFixed(1)}%`;
    for (const k of ['ferry', 'bare']) console.log(`${k.padEnd(5)} ${r[k].windows.map(show).join(' | ')}`);
    console.log(
      `ferry ${r.ferry.cpuUs.toFixed(0)} µs CPU/request; median-window p99 ferry ${r.ferry.p99.toFixed(1)} ms, baseline ${r.bare.p99.toFixed(1)} ms; p99 ratio, median pair ${median(r.ratios).toFixed(2)} (${r.ratios.map((x) => x.toFixed(2)).join(', ')}); load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
