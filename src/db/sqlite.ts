import BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { migrations, Migration, sqlFor } from './migrations';
import { loadNativeBinding } from './native-addon';

export type SqliteDb = BetterSqlite3.Database;

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'ferry.db');
}

/**
 * Opens data_dir/ferry.db with the settings every process (serve, CLI, tests) must share: WAL so readers and
 * the writer do not block each other, foreign keys, and migrations applied. The busy timeout is 5 s while
 * migrating at start-up, then 0: from there on, waiting for another process's lock is done asynchronously by
 * the driver (src/db/sqlite-driver.ts), without blocking the event loop.
 */
export function openSqlite(dataDir: string, list: Migration[] = migrations, opts: { readonly?: boolean } = {}): SqliteDb {
  // The database holds password hashes, remote secrets and download tokens: readable by ferry's user only
  // (SQLite gives its -wal and -shm files the same mode). An existing file keeps the mode its admin chose.
  const file = sqliteFile(dataDir);
  if (!opts.readonly) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(file, 'a', 0o600));
  }
  return openSqliteFile(file, list, opts);
}

export function openSqliteFile(file: string, list: Migration[] = migrations, opts: { readonly?: boolean } = {}): SqliteDb {
  const nativeBinding = loadNativeBinding(path.dirname(file));
  const options = { ...(nativeBinding ? { nativeBinding } : {}), ...(opts.readonly ? { readonly: true, fileMustExist: true } : {}) } as BetterSqlite3.Options;
  const db = new BetterSqlite3(file, options);
  db.pragma('busy_timeout = 5000');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  if (!opts.readonly) migrateSqlite(db, list);
  db.pragma('busy_timeout = 0');
  return db;
}

/**
 * The flush behind a durable commit. In WAL mode with synchronous = NORMAL a COMMIT writes its frames to the
 * -wal file without waiting for the disk: a process killed after it loses nothing, but a power cut can take
 * the last commits back. synchronous = FULL would wait inside COMMIT, blocking the event loop for a whole
 * fdatasync (milliseconds on a spinning disk) on every write. So units of work commit as before and then wait
 * for this, in the thread pool, shared by the units of work that committed meanwhile (src/db/group-flush.ts):
 * fdatasync of the -wal file, and once per process of the folder that names it (the file is made when the
 * database is opened). Opened afresh each time, so a -wal file removed and made again is still the one
 * flushed; none at all means every commit is in the database file already (docs/architecture.md, SQLite).
 */
export function sqliteWalFlush(dataDir: string): () => Promise<void> {
  const wal = `${sqliteFile(dataDir)}-wal`;
  let folderFlushed = false;
  const sync = async (file: string) => {
    const h = await fsp.open(file, 'r');
    try {
      await h.datasync();
    } finally {
      await h.close();
    }
  };
  return async () => {
    try {
      await sync(wal);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    if (!folderFlushed) {
      await sync(path.dirname(wal));
      folderFlushed = true;
    }
  };
}

export function migrateSqlite(db: SqliteDb, list: Migration[]): void {
  const sorted = [...list].sort((a, b) => a.version - b.version);
  const latest = sorted.length ? sorted[sorted.length - 1].version : 0;
  // Serialise concurrent starts: the first takes the write lock, the others then see the new version.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > latest) throw new Error(`database schema version ${current} is newer than this ferry (${latest})`);
    for (const m of sorted) {
      if (m.version <= current) continue;
      db.exec(sqlFor(m, 'sqlite'));
      db.pragma(`user_version = ${m.version}`);
    }
  }).immediate();
}

export function sqliteSchemaVersion(db: SqliteDb): number {
  return db.pragma('user_version', { simple: true }) as number;
}
