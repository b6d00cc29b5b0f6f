import BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { migrations, Migration, sqlFor } from './migrations';
import { loadNativeBinding } from './native-addon';
import { ServiceError } from '../domain/errors';
import { DatabaseFullError, DatabaseUnavailableError } from './errors';
import { schemaTooNew } from './errors';

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
export function openSqlite(
  dataDir: string,
  list: Migration[] = migrations,
  opts: { readonly?: boolean } = {},
): SqliteDb {
  // The database holds password hashes, remote secrets and download tokens: readable by ferry's user only
  // (SQLite gives its -wal and -shm files the same mode). An existing file keeps the mode its admin chose.
  const file = sqliteFile(dataDir);
  if (!opts.readonly) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(file, 'a', 0o600));
  }
  return openSqliteFile(file, list, opts);
}

export function openSqliteFile(
  file: string,
  list: Migration[] = migrations,
  opts: { readonly?: boolean } = {},
): SqliteDb {
  const nativeBinding = loadNativeBinding(path.dirname(file));
  const options = {
    ...(nativeBinding ? { nativeBinding } : {}),
    ...(opts.readonly ? { readonly: true, fileMustExist: true } : {}),
  } as BetterSqlite3.Options;
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

/** The flush behind durable commits, and the descriptor it keeps, closed with the database. */
export interface WalFlush {
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** How often one flush follows a -wal file made anew while it ran before giving up (it never is, in practice). */
const WAL_REOPENS = 3;

/**
 * The flush behind a durable commit. In WAL mode with synchronous = NORMAL a COMMIT writes its frames to the
 * -wal file without waiting for the disk: a process killed after it loses nothing, but a power cut can take
 * the last commits back. synchronous = FULL would wait inside COMMIT, blocking the event loop for a whole
 * fdatasync (milliseconds on a spinning disk) on every write. So units of work commit as before and then wait
 * for this, in the thread pool, shared by the units of work that committed meanwhile (src/db/group-flush.ts):
 * fdatasync of the -wal file, and once per process of the folder that names it (the file is made when the
 * database is opened). The descriptor is kept between flushes: opening and closing it around each one cost a
 * chunk two more trips to the thread pool, some 2% of an upload's main-thread CPU. SQLite removes and remakes
 * the file only when the last connection closes, which this process's does not while it serves; should it
 * happen, the path names another file than the one kept (its inode, checked after each flush) and the new
 * one is opened and flushed. No file at all means every commit is in the database file already
 * (docs/architecture.md, SQLite).
 */
export function sqliteWalFlush(dataDir: string): WalFlush {
  const wal = `${sqliteFile(dataDir)}-wal`;
  let folderFlushed = false;
  let kept: { handle: fsp.FileHandle; ino: number } | null = null;
  /** The inode the path names now (a stat of a cached name), or null when there is none. */
  const named = (): number | null => fs.statSync(wal, { throwIfNoEntry: false })?.ino ?? null;
  const drop = async () => {
    const k = kept;
    kept = null;
    await k?.handle.close().catch(() => {});
  };
  const flushWal = async () => {
    for (let attempt = 0; attempt < WAL_REOPENS; attempt++) {
      if (!kept) {
        const handle = await fsp.open(wal, 'r').catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOENT') return null;
          throw e;
        });
        if (!handle) return;
        kept = { handle, ino: (await handle.stat()).ino };
      }
      const file = kept;
      await file.handle.datasync();
      // The file flushed is still the one the path names: every commit made before the flush is on the disk.
      const ino = named();
      if (ino === file.ino) return;
      if (kept === file) await drop();
      if (ino === null) return;
    }
    throw new Error(`${wal} was made anew during each of ${WAL_REOPENS} flushes`);
  };
  return {
    async flush() {
      try {
        await flushWal();
        if (!folderFlushed) {
          const d = await fsp.open(path.dirname(wal), 'r');
          try {
            await d.sync();
          } finally {
            await d.close();
          }
          folderFlushed = true;
        }
      } catch (e) {
        throw flushFailure(e);
      }
    },
    close: drop,
  };
}

/**
 * A flush the disk refused (EIO, a full disk): the commits waiting on it are not acknowledged, as the
 * catalogue's typed error, never an internal error: database_unavailable (503, the client sends it again) or,
 * for a full disk, storage_not_enough_space_left (507).
 */
function flushFailure(e: unknown): unknown {
  if (e instanceof ServiceError) return e;
  const code = (e as { code?: unknown })?.code;
  const why = `the -wal file could not be flushed to the disk: ${(e as Error)?.message ?? String(e)}`;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new DatabaseFullError(why, e);
  return new DatabaseUnavailableError(why, e);
}

export function migrateSqlite(db: SqliteDb, list: Migration[]): void {
  const sorted = [...list].sort((a, b) => a.version - b.version);
  const latest = sorted.length ? sorted[sorted.length - 1].version : 0;
  // Serialise concurrent starts: the first takes the write lock, the others then see the new version.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > latest) throw schemaTooNew(current, latest);
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
