import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrations, Migration } from './migrations';
import { loadNativeBinding } from './native-addon';

export type Db = Database.Database;

/**
 * Opens data_dir/ferry.db with the settings every process (serve, CLI, tests) must share: WAL so readers and
 * the writer do not block each other, foreign keys, and a busy timeout so `ferry purge` from cron and the
 * running server wait for each other instead of failing.
 */
export function openDatabase(dataDir: string, list: Migration[] = migrations): Db {
  // The database holds password hashes, remote secrets and download tokens: readable by ferry's user only
  // (SQLite gives its -wal and -shm files the same mode). An existing file keeps the mode its admin chose.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'ferry.db');
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  const nativeBinding = loadNativeBinding(dataDir);
  const options = nativeBinding ? ({ nativeBinding } as unknown as Database.Options) : {};
  const db = new Database(file, options);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  migrate(db, list);
  cacheStatements(db);
  return db;
}

/** Prepared statements kept per SQL text; bounded, since a few statements are built for a list's length. */
const STATEMENT_CACHE = 500;

/**
 * Repositories call db.prepare(sql) where they use it; compiling the same SQL again on every request cost a
 * fifth of the server's CPU on GET /transfer. Statements are reused here instead, which is safe because no
 * repository changes a statement's mode (pluck, raw, expand) or keeps an iterator open across calls.
 */
function cacheStatements(db: Db): void {
  const compile = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
      stmt = compile(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  }) as Db['prepare'];
}

export function migrate(db: Db, list: Migration[]): void {
  const sorted = [...list].sort((a, b) => a.version - b.version);
  const latest = sorted.length ? sorted[sorted.length - 1].version : 0;
  // Serialise concurrent starts: the first takes the write lock, the others then see the new version.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > latest) throw new Error(`database schema version ${current} is newer than this ferry (${latest})`);
    for (const m of sorted) {
      if (m.version <= current) continue;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }
  }).immediate();
}
