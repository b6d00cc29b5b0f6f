import BetterSqlite3 from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { migrations } from './migrations';
import { openSqliteFile, sqliteFile } from './sqlite';
import { createPool, inTransaction, migratePostgres } from './postgres';
import { loadNativeBinding } from './native-addon';
import { TABLES } from './schema';

export interface CopyReport {
  /** Rows copied per table (equal on both sides, checked after the copy). */
  tables: Record<string, number>;
}

export class CopyRefused extends Error {}

/** Rows sent to PostgreSQL per INSERT (well under its 65,535 parameters for the widest table). */
const BATCH = 500;

/**
 * `ferry db copy --to postgres://…`: moves the metadata of a data directory's SQLite file into an empty
 * PostgreSQL database. The copy comes from an online backup of the file (SQLite's backup API), so it is one
 * consistent moment even while `serve` keeps writing; the source is only read. The target gets the same
 * numbered migrations, then every table in dependency order, in one transaction, with the identity sequences
 * moved past the copied ids; row counts are compared before it commits.
 */
export async function copySqliteToPostgres(dataDir: string, url: string): Promise<CopyReport> {
  const source = sqliteFile(dataDir);
  if (!fs.existsSync(source)) throw new CopyRefused(`no SQLite database at ${source}`);
  const snapshotFile = path.join(dataDir, `.copy-${process.pid}-${crypto.randomBytes(4).toString('hex')}.db`);
  const pool = createPool(url);
  try {
    await assertEmpty(pool);
    await snapshotSqlite(source, snapshotFile);
    // The snapshot (never the source) is brought to this ferry's schema on opening, as serve would on start.
    const snap = openSqliteFile(snapshotFile, migrations);
    try {
      await migratePostgres(pool);
      const tables: Record<string, number> = {};
      await inTransaction(pool, async (client) => {
        for (const t of TABLES) {
          const rows = snap.prepare(`SELECT * FROM ${t.name} ORDER BY ${t.orderBy.join(', ')}`).all() as Record<
            string,
            unknown
          >[];
          for (let i = 0; i < rows.length; i += BATCH) await insertRows(client, t.name, rows.slice(i, i + BATCH));
          if (t.identity) {
            await client.query(
              `SELECT setval(pg_get_serial_sequence('${t.name}', 'id'), COALESCE((SELECT MAX(id) FROM ${t.name}), 0) + 1, false)`,
            );
          }
          const copied = Number((await client.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${t.name}`)).rows[0].n);
          if (copied !== rows.length) throw new Error(`${t.name}: ${rows.length} rows read, ${copied} written`);
          tables[t.name] = copied;
        }
      });
      // The planner's statistics for the copied rows, as PostgreSQL advises after a bulk load: without them it
      // takes the tables for empty until autovacuum's next round, and scans them whole (docs/architecture.md,
      // "Lists and pages").
      await pool.query('ANALYZE');
      return { tables };
    } finally {
      snap.close();
    }
  } finally {
    await pool.end().catch(() => {});
    for (const f of [snapshotFile, `${snapshotFile}-wal`, `${snapshotFile}-shm`]) fs.rmSync(f, { force: true });
  }
}

/** SQLite's online backup of the live file into `to`: a consistent copy while other processes write (also `ferry backup`). */
export async function snapshotSqlite(from: string, to: string): Promise<void> {
  const nativeBinding = loadNativeBinding(path.dirname(from));
  const src = new BetterSqlite3(from, {
    readonly: true,
    fileMustExist: true,
    ...(nativeBinding ? { nativeBinding } : {}),
  } as BetterSqlite3.Options);
  try {
    src.pragma('busy_timeout = 5000');
    await src.backup(to);
  } finally {
    src.close();
  }
  fs.chmodSync(to, 0o600);
}

/** The target must hold no table at all (a fresh `CREATE DATABASE`): nothing there is overwritten or merged. */
async function assertEmpty(pool: import('pg').Pool): Promise<void> {
  const r = await pool.query<{ n: string }>(
    `SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  if (Number(r.rows[0].n) > 0)
    throw new CopyRefused('the target database is not empty: copy into a new database (CREATE DATABASE …)');
}

async function insertRows(
  client: import('pg').PoolClient,
  table: string,
  rows: Record<string, unknown>[],
): Promise<void> {
  if (!rows.length) return;
  const cols = Object.keys(rows[0]);
  const params: unknown[] = [];
  const values = rows.map((row) => `(${cols.map((c) => `$${params.push(row[c])}`).join(', ')})`);
  await client.query(`INSERT INTO ${table} (${cols.join(', ')}) VALUES ${values.join(', ')}`, params);
}
