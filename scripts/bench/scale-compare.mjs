// Two builds of ferry on one loaded PostgreSQL database, taking turns (docs/performance.md, "Scale"): on a
// machine whose load changes from minute to minute, a figure means something only beside a baseline measured in
// the same minutes. For each build and round: the admin's and a user's list pages and the overview's counts,
// one client alone (median of 30) and 8 clients at once (p50, p99 of 200), and the CPU ferry's process spent per
// request while the 8 clients ran (user + system time from /proc: what a request costs whatever the wait for a
// core). `node scripts/bench/scale-compare.mjs <transfers> <baseline binary> [rounds]`; this tree's
// dist/ferry is the other build.
import fs from 'node:fs';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { call, pool, ROOT, startFerry, startProcess, tempDir } from './lib.mjs';
import { loadScale, userId } from './scale-load.mjs';

const CLIENTS = 8;
const REQUESTS = 200;
const as = (user) => ({ 'X-Remote-User': user, 'X-Remote-Email': `${user}@example.org` });

/** User plus system CPU time of a process so far, in ms (Linux: 100 clock ticks a second). */
function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measure(ferry, paths, headers) {
  for (let i = 0; i < 20; i++) await call(ferry.url + paths[i % paths.length], 'GET', headers); // warm-up
  const alone = [];
  for (let i = 0; i < 30; i++) {
    const s = process.hrtime.bigint();
    const r = await call(ferry.url + paths[i % paths.length], 'GET', headers);
    if (r.status !== 200) throw new Error(`GET ${paths[0]}: ${r.status}`);
    alone.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  alone.sort((a, b) => a - b);
  const lat = [];
  const c0 = cpuMs(ferry.proc.pid);
  await pool(REQUESTS, CLIENTS, async (i) => {
    const s = process.hrtime.bigint();
    await call(ferry.url + paths[i % paths.length], 'GET', headers);
    lat.push(Number(process.hrtime.bigint() - s) / 1e6);
  });
  const cpu = (cpuMs(ferry.proc.pid) - c0) / REQUESTS;
  lat.sort((a, b) => a - b);
  return { alone: alone[15], p50: lat[REQUESTS / 2], p99: lat[Math.floor(REQUESTS * 0.99)], cpu };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { reexecOnProjectNode } = await import('../project-node.mjs');
  await reexecOnProjectNode();
  const transfers = Number(process.argv[2] ?? 20_000);
  const baseline = process.argv[3];
  const rounds = Number(process.argv[4] ?? 2);
  if (!baseline) throw new Error('usage: scale-compare.mjs <transfers> <baseline binary> [rounds]');
  const builds = { baseline: path.resolve(baseline), 'this tree': path.join(ROOT, 'dist/ferry') };
  const dir = tempDir();
  try {
    const { freshPostgresDatabase } = await tsImport('../../test/helpers/system/postgres.ts', import.meta.url);
    const url = await freshPostgresDatabase('ferry_scale_compare');
    const extra = { database_url: url, admin: [userId(0)], user_quota: 1024 ** 5, max_transfer_days_valid: 20 };
    const first = await startFerry(dir, extra); // migrates, and writes the config both builds use
    await first.stop();
    const loaded = await loadScale(url, { transfers });
    console.log(`loaded ${transfers} transfers in ${loaded.seconds.toFixed(1)} s`);
    const admin = as(userId(0));
    const rows = {
      "a user's first page (100)": ['/transfer?limit=100'],
      'admin, first page of all transfers': ['/transfer/@all?limit=100'],
      'admin, deep pages by key': Array.from(
        { length: 20 },
        (_, i) => `/transfer/@all?limit=100&after=${Math.max(101, Math.floor(transfers / 10) - i * 97)}`,
      ),
      'admin, first page of users': ['/user/@all?limit=100'],
      'admin, the overview counts': ['/usage/counts'],
    };
    for (let round = 1; round <= rounds; round++) {
      for (const [build, binary] of Object.entries(builds)) {
        const ferry = await startProcess(binary, ['serve', '-c', first.config], { cwd: dir, env: process.env });
        try {
          const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
          console.log(`round ${round}, ${build} (load average ${load}):`);
          for (const [label, paths] of Object.entries(rows)) {
            const m = await measure(ferry, paths, admin);
            console.log(
              `  ${label}: alone ${m.alone.toFixed(1)} ms; ${CLIENTS} clients p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms; ferry's CPU ${m.cpu.toFixed(1)} ms a request`,
            );
          }
        } finally {
          await ferry.stop();
        }
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
