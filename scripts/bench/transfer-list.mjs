// The transfer list rows: the first page of a user's 5,000 transfers (GET /transfer?limit=100), on SQLite and on
// PostgreSQL, beside GET /transfer/{id} of one of them in the same run. The views of a page are built in batches
// (docs/architecture.md, "Lists and pages"): a few statements for the whole page, whatever its size.
// Alone: `node scripts/bench/transfer-list.mjs` (needs dist/ferry); run.mjs runs it among the other rows.
import path from 'node:path';
import fs from 'node:fs';
import { seedTransfers } from './latency.mjs';
import { tsImport } from 'tsx/esm/api';
import { call, ferryCli, median, startFerry, tempDir } from './lib.mjs';
import { USER } from './clients.mjs';

const PAGE = 100;
const WARM = 20;
const RUNS = 60;

/** Median and slowest of RUNS sequential GETs of `urlPath`, after WARM unmeasured ones. */
async function timeGets(base, urlPath) {
  const xs = [];
  for (let i = 0; i < WARM + RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const r = await call(`${base}${urlPath}`, 'GET', USER);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 200) throw new Error(`GET ${urlPath}: ${r.status} ${r.body.toString().slice(0, 200)}`);
    if (i >= WARM) xs.push(ms);
  }
  return {
    ms: median(xs),
    max: Math.max(...xs),
    body: JSON.parse((await call(`${base}${urlPath}`, 'GET', USER)).body.toString()),
  };
}

async function measureOn(ferry, label, count, row) {
  const page = await timeGets(ferry.url, `/transfer?limit=${PAGE}`);
  if (page.body.length !== PAGE) throw new Error(`first page: ${page.body.length} transfers`);
  const one = await timeGets(ferry.url, `/transfer/${page.body[0].id}`);
  row(
    `first page (${PAGE}) of ${count} transfers, GET /transfer?limit=${PAGE}, vs GET /transfer/{id}, ${label}`,
    { ms: page.ms, max: page.max },
    { ms: one.ms },
    { ms: 50, of: 'ms' },
  );
}

/** Both rows: SQLite, then the same database copied to PostgreSQL by `ferry db copy`. */
export async function transferListRows({ dir, row, count = 5000 }) {
  const home = path.join(dir, 'transfer-list');
  fs.mkdirSync(home, { recursive: true });
  const first = await startFerry(home);
  await first.stop();
  // The user "bench" with all `count` transfers.
  seedTransfers(path.join(home, 'data', 'ferry.db'), count, () => ['bench', 'bench@example.org']);
  const onSqlite = await startFerry(home);
  try {
    await measureOn(onSqlite, 'SQLite', count, row);
  } finally {
    await onSqlite.stop();
  }
  const { freshPostgresDatabase } = await tsImport('../../test/helpers/system/postgres.ts', import.meta.url);
  const pgUrl = await freshPostgresDatabase('ferry_bench_list');
  ferryCli(['db', 'copy', '--to', pgUrl, '-c', onSqlite.config]);
  const onPg = await startFerry(home, { database_url: pgUrl });
  try {
    await measureOn(onPg, 'PostgreSQL', count, row);
  } finally {
    await onPg.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { reexecOnProjectNode } = await import('../project-node.mjs');
  await reexecOnProjectNode();
  const dir = tempDir();
  try {
    await transferListRows({
      dir,
      row: (work, f, b, budget) =>
        console.log(
          `${work}: ${f.ms.toFixed(1)} ms (slowest ${f.max.toFixed(1)} ms) vs ${b.ms.toFixed(1)} ms; budget < ${budget.ms} ms: ${f.ms < budget.ms ? 'yes' : 'NO'}`,
        ),
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
