import fs from 'node:fs';
import { migrations } from './migrations';
import { createPool, inTransaction, migratePostgres, redactDatabaseUrl } from './postgres';
import { openSqlite, openSqliteFile, sqliteFile, sqliteSchemaVersion } from './sqlite';

export interface MigrationReport {
  /** The database migrated: the SQLite file, or the PostgreSQL URL without its password. */
  where: string;
  /** Schema version before (0: a new database) and after. */
  from: number;
  to: number;
}

/** The schema version this ferry brings (the last migration's number). */
export function latestSchemaVersion(): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}

/**
 * Brings the database to this ferry's schema and closes it, serving nothing: what a package's upgrade runs
 * before the service starts again (docs/deploying.md), so that a failing migration stops the upgrade instead
 * of the service. The same migrations `serve` applies at start-up; applying them twice does nothing.
 */
export async function migrateDatabase(opts: { dataDir: string; url: string | null }): Promise<MigrationReport> {
  if (opts.url) {
    const pool = createPool(opts.url);
    try {
      const from = await inTransaction(pool, async (client) => {
        const t = await client.query<{ t: string | null }>(`SELECT to_regclass('ferry_schema')::text AS t`);
        if (!t.rows[0]?.t) return 0;
        const r = await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM ferry_schema');
        return Number(r.rows[0]?.v ?? 0);
      });
      await migratePostgres(pool);
      return { where: redactDatabaseUrl(opts.url), from, to: latestSchemaVersion() };
    } finally {
      await pool.end().catch(() => {});
    }
  }
  const file = sqliteFile(opts.dataDir);
  let from = 0;
  if (fs.existsSync(file) && fs.statSync(file).size > 0) {
    const before = openSqliteFile(file, migrations, { readonly: true });
    try {
      from = sqliteSchemaVersion(before);
    } finally {
      before.close();
    }
  }
  const db = openSqlite(opts.dataDir);
  try {
    return { where: file, from, to: sqliteSchemaVersion(db) };
  } finally {
    db.close();
  }
}
