import pg from 'pg';
import { PostgresDialect } from 'kysely';
import { Errors } from '../domain/errors';
import { DatabaseUnavailableError, fromPostgres, schemaTooNew } from './errors';
import { migrations, Migration, sqlFor } from './migrations';
import { preparedOnPostgres } from './context';
import { Gate } from '../util/gate';

/** Connections per process; a unit of work holds one for its duration, a lone statement for its own. */
const POOL_SIZE = 10;
/** Longest wait for a new connection (or for a free one of the pool): then 503 database_unavailable. */
export const CONNECT_TIMEOUT_MS = 5000;
/**
 * Longest wait for a statement's answer: then 503 database_unavailable, and the connection is dropped (a server
 * that went silent, packets dropped without a reset, never answers on it). Far above any statement of a request
 * (milliseconds; the admin's lists at a million transfers stay under 50 ms); migrations, which may build an
 * index over a large table, wait without it (MIGRATION_TIMEOUT_MS).
 */
export const QUERY_TIMEOUT_MS = 15_000;
/** A migration's statement may run this long (an index on a million-row table takes seconds to minutes). */
const MIGRATION_TIMEOUT_MS = 6 * 3600_000;
/** An idle connection is probed by TCP keepalives from this long after its last packet. */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * BIGINT (int8) columns come back from pg as strings, to be safe beyond 2^53; every integer ferry stores (times,
 * sizes, ids) is a safe integer, so they are read as numbers, like better-sqlite3 gives them.
 */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20
      ? (v: string) => Number(v)
      : (pg.types.getTypeParser as (o: number, f?: string) => unknown)(oid, format)) as typeof pg.types.getTypeParser,
};

/** The listener of a connection's 'error' events: its failing query says what went wrong. */
const ignore = () => {};

export function createPool(url: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    types,
    application_name: 'ferry',
    // A server that cannot be reached is reported (503 database_unavailable) within this bound rather than waited
    // for: without it, a connection attempt into a dropped network waits for the system's TCP timeout (minutes).
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A peer that vanished without a word (a host down, a firewall's dropped state) is found by TCP keepalives.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    // Keepalives find a silent peer of an idle connection only after the system's probes (minutes); a statement
    // waiting on one is bounded here instead (docs/deploying.md, "When the store or the database fails").
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // An idle connection the server drops (restart, network) is an event on the pool, not an exception for the process.
  pool.on('error', () => {});
  // So is a connection the server drops while it is checked out (the pool listens only to idle ones): a unit of
  // work's, or one held for a cross-node lock (src/db/database.ts). Its query fails, and the pool discards it
  // when it comes back; without a listener the 'error' event would end the process, not the request.
  pool.on('connect', (client) => client.on('error', ignore));
  return pool;
}

/**
 * A text with a NUL character cannot be stored in PostgreSQL (SQLite takes it): such input is refused as a bad
 * parameter before it reaches the server, instead of the server's error turning into a 500.
 */
function refuseNul(params: unknown): void {
  if (!Array.isArray(params)) return;
  for (const p of params) if (typeof p === 'string' && p.includes('\0')) throw Errors.restBadParameter('NUL character');
}

/**
 * Kysely's PostgreSQL dialect over the pool, with the NUL check on every statement, and the server's being away
 * turned into the catalogue's error.
 */
export function postgresDialect(pool: pg.Pool): PostgresDialect {
  const checked = {
    connect: async () => {
      const client = await pool.connect().catch((e) => {
        throw fromPostgres(e);
      });
      const marked = client as pg.PoolClient & { ferryChecked?: boolean };
      if (!marked.ferryChecked) {
        const query = client.query.bind(client) as (...a: unknown[]) => unknown;
        (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
          refuseNul(a[1]);
          // A statement kept prepared (src/db/context.ts, preparedOnPostgres) goes by its name: the connection
          // parses and plans it the first time only.
          const name = typeof a[0] === 'string' ? preparedOnPostgres.get(a[0]) : undefined;
          const answer = name ? query({ name, text: a[0], values: a[1] }, ...a.slice(2)) : query(...a);
          // The server going away mid-statement is the catalogue's database_unavailable (src/db/errors.ts).
          return answer instanceof Promise
            ? answer.catch((e) => {
                // pg leaves the timed-out statement running on the connection, so the next one (the unit of
                // work's ROLLBACK, the next request's) would wait behind it: the connection is dropped, and the
                // pool discards it when it is released.
                if ((e as Error)?.message === 'Query read timeout') dropConnection(client);
                return Promise.reject(fromPostgres(e));
              })
            : answer;
        };
        marked.ferryChecked = true;
      }
      return client;
    },
    end: () => pool.end(),
  };
  return new PostgresDialect({ pool: checked as unknown as pg.Pool });
}

/**
 * A node's heaviest reads on the database at once: pages of Transfers with their files, recipients and what is
 * shown beside them (src/db/transfer-extras-repo.ts). The others wait their turn in the node.
 */
const HEAVY_READS = 2;

/** The turns of a pool's heavy reads; a read that gets none within CONNECT_TIMEOUT_MS is 503, as a busy pool. */
export function heavyReadsGate(): Gate {
  return new Gate(
    HEAVY_READS,
    CONNECT_TIMEOUT_MS,
    () => new DatabaseUnavailableError(`no turn for a list's statement within ${CONNECT_TIMEOUT_MS} ms`),
  );
}

/** Closes a client's socket at once (pg has no public call that does not wait for the server's answer). */
function dropConnection(client: pg.PoolClient): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** Applies the numbered migrations; concurrent starts of several nodes wait for each other on an advisory lock. */
export async function migratePostgres(pool: pg.Pool, list: Migration[] = migrations): Promise<void> {
  const sorted = [...list].sort((a, b) => a.version - b.version);
  const latest = sorted.length ? sorted[sorted.length - 1].version : 0;
  await inTransaction(pool, async (client) => {
    // Another node's migrations may hold the lock for as long as they run.
    await client.query({
      text: `SELECT pg_advisory_xact_lock(hashtext('ferry:migrate'))`,
      query_timeout: MIGRATION_TIMEOUT_MS,
    } as pg.QueryConfig);
    await client.query('CREATE TABLE IF NOT EXISTS ferry_schema (version BIGINT NOT NULL)');
    const r = await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM ferry_schema');
    const current = Number(r.rows[0]?.v ?? 0);
    if (current > latest) throw schemaTooNew(current, latest);
    for (const m of sorted) {
      if (m.version <= current) continue;
      await client.query({ text: sqlFor(m, 'postgres'), query_timeout: MIGRATION_TIMEOUT_MS } as pg.QueryConfig);
      await client.query('INSERT INTO ferry_schema (version) VALUES ($1)', [m.version]);
    }
  });
}

/** Runs fn on one pooled connection inside BEGIN … COMMIT; anything thrown rolls it back. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

export { redactDatabaseUrl } from '../config/database-url';
