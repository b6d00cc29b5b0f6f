import type Database from 'better-sqlite3';
import {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  Kysely,
  QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseUnavailableError, fromSqlite } from './errors';

/** How long a statement waits for another process's write lock before the request fails (503). */
export const BUSY_WAIT_MS = 30_000;
/** Prepared statements kept per SQL text; bounded, since a few statements are built for a list's length. */
const STATEMENT_CACHE = 500;

/** SQLite locked by another process for longer than BUSY_WAIT_MS: 503 database_unavailable (src/db/errors.ts). */
export class DatabaseBusyError extends DatabaseUnavailableError {
  readonly code = 'FERRY_DB_BUSY';
}

function isBusy(e: unknown): boolean {
  return typeof (e as { code?: unknown })?.code === 'string' && (e as { code: string }).code.startsWith('SQLITE_BUSY');
}

/**
 * One better-sqlite3 connection, used by one unit of work or one statement at a time (the driver's mutex).
 *
 * Another process (a CLI command, a second `serve`) may hold the file's write lock. SQLite's busy timeout
 * would wait for it inside the statement, blocking the event loop; instead the timeout is 0 and a busy
 * statement is retried here after an asynchronous pause, so the server keeps answering meanwhile. Write
 * transactions take the lock up front (BEGIN IMMEDIATE, retried the same way): a deferred BEGIN that read
 * first and then wanted to write would fail at once when another process wrote in between, with no retry
 * possible inside the transaction.
 */
export class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    // Inside a transaction the write lock is already held: a busy answer there cannot be waited out.
    if (this.db.inTransaction) return this.run<R>(q.sql, q.parameters);
    return this.retryBusy(() => this.run<R>(q.sql, q.parameters));
  }

  // biome-ignore lint/correctness/useYield: Kysely's driver interface asks for it; ferry never streams.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not used by ferry');
  }

  /** BEGIN IMMEDIATE, waiting (asynchronously) for another process's write transaction to end. */
  begin(): Promise<void> {
    return this.retryBusy(() => {
      this.db.exec('BEGIN IMMEDIATE');
    });
  }

  private async retryBusy<T>(fn: () => T): Promise<T> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return fn();
      } catch (e) {
        if (!isBusy(e)) throw e;
        if (Date.now() - started > BUSY_WAIT_MS)
          throw new DatabaseBusyError(`database is locked by another process for more than ${BUSY_WAIT_MS / 1000} s`);
      }
      // 1, 2, 4 … 32 ms with jitter: short while another process commits a chunk's range, light when it takes longer.
      await sleep(Math.min(32, 2 ** Math.min(attempt, 5)) * (0.5 + Math.random()));
    }
  }

  /** A SELECT run at once (see FerrySqliteDialect.readNow). */
  readNow(sql: string, parameters: readonly unknown[]): unknown[] {
    return this.prepare(sql).all(parameters);
  }

  private run<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> {
    try {
      const stmt = this.prepare(sql);
      if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
      const r = stmt.run(parameters);
      return { numAffectedRows: BigInt(r.changes), insertId: BigInt(r.lastInsertRowid), rows: [] };
    } catch (e) {
      throw fromSqlite(e);
    }
  }

  /**
   * Compiling the same SQL again on every request cost a fifth of the server's CPU on GET /transfer: statements
   * are reused per SQL text, which is safe because none changes its mode (pluck, raw, expand).
   */
  private prepare(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.delete(this.statements.keys().next().value!);
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }
}

/** Hands the one connection to one user at a time; waiting is asynchronous. */
class Mutex {
  held = false;
  private readonly waiting: (() => void)[] = [];

  lock(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  unlock(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

class FerrySqliteDriver implements Driver {
  private readonly mutex: Mutex;
  private readonly connection: SqliteConnection;

  constructor(_db: Database.Database, shared: SqliteShared) {
    this.connection = shared.connection;
    this.mutex = shared.mutex;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    return this.connection;
  }

  async beginTransaction(): Promise<void> {
    await this.connection.begin();
  }

  async commitTransaction(): Promise<void> {
    try {
      this.connection.db.exec('COMMIT');
    } catch (e) {
      throw fromSqlite(e);
    }
  }

  async rollbackTransaction(): Promise<void> {
    if (this.connection.db.inTransaction) this.connection.db.exec('ROLLBACK');
  }

  async releaseConnection(): Promise<void> {
    this.mutex.unlock();
  }

  async destroy(): Promise<void> {
    this.connection.db.close();
  }
}

interface SqliteShared {
  connection: SqliteConnection;
  mutex: Mutex;
}

/** Kysely over one better-sqlite3 connection, with the busy handling of SqliteConnection. */
export class FerrySqliteDialect implements Dialect {
  private readonly shared: SqliteShared;

  constructor(private readonly db: Database.Database) {
    this.shared = { connection: new SqliteConnection(db), mutex: new Mutex() };
  }

  /**
   * The read fast path: a SELECT answered at once from the cached statement when no unit of work holds the
   * connection (so it cannot see another one's uncommitted rows), else undefined and the caller goes through
   * Kysely's executor. Kysely's executor costs some 20 µs per statement in awaits and hand-overs; GET
   * /transfer/{id} makes five statements (docs/architecture.md, Units of work; docs/performance.md).
   */
  readNow(sql: string, parameters: readonly unknown[]): unknown[] | undefined {
    if (this.shared.mutex.held || this.db.inTransaction) return undefined;
    try {
      return this.shared.connection.readNow(sql, parameters);
    } catch (e) {
      if (isBusy(e)) return undefined; // waited out on the ordinary path
      throw e;
    }
  }

  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new FerrySqliteDriver(this.db, this.shared);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
