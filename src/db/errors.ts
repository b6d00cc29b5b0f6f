import { Errors, ServiceError } from '../domain/errors';
import { ReleaseTooOldError } from '../domain/features';

/**
 * The database's failures that are no fault of the request, as the catalogue's errors (docs/architecture.md,
 * Errors): the HTTP layer sees only `database_unavailable` (503, the client tries again), never a driver's code.
 */
export class DatabaseUnavailableError extends ServiceError {
  constructor(message: string, cause?: unknown) {
    super(Errors.databaseUnavailable.id, Errors.databaseUnavailable.status);
    this.name = 'DatabaseUnavailableError';
    if (cause !== undefined) this.cause = cause;
    // The log line of a 503 says why: the driver's own message, not only the id.
    this.message = `${Errors.databaseUnavailable.id}: ${message}`;
  }
}

/** The network's failures of a connection to the server: refused, reset, timed out, unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * What the driver (pg, pg-pool) says, without a code, when a connection is lost or cannot be had: the server
 * closed it mid-statement, the client was broken by an earlier error, no connection within the pool's deadline.
 */
const LOST_CONNECTION = [
  /^Connection terminated/,
  /connection error and is not queryable/,
  /Client was closed and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /^Connection closed/,
];

/**
 * PostgreSQL unreachable, shutting down, out of connections or gone mid-statement: a network failure of the
 * connection, SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, crash), 53300
 * (too many connections), and the driver's own words for a lost connection. Every one is 503
 * `database_unavailable`, never 500: the request did nothing wrong, and is sent again.
 */
export function isPostgresUnavailable(e: unknown): boolean {
  if (e instanceof DatabaseUnavailableError) return true;
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300') return true;
  }
  const message = (e as { message?: unknown })?.message;
  return typeof message === 'string' && LOST_CONNECTION.some((re) => re.test(message));
}

/** The disk under the database is full (SQLite's SQLITE_FULL, PostgreSQL's 53100): 507, as for file data. */
export class DatabaseFullError extends ServiceError {
  constructor(message: string, cause?: unknown) {
    super(Errors.storageNotEnoughSpaceLeft.id, Errors.storageNotEnoughSpaceLeft.status);
    this.name = 'DatabaseFullError';
    if (cause !== undefined) this.cause = cause;
    this.message = `${Errors.storageNotEnoughSpaceLeft.id}: ${message}`;
  }
}

/** The catalogue's error for a PostgreSQL failure that is the server's state, else the failure as it was. */
export function fromPostgres(e: unknown): unknown {
  if (e instanceof ServiceError) return e;
  if ((e as { code?: unknown })?.code === '53100') return new DatabaseFullError((e as Error).message, e);
  return isPostgresUnavailable(e) ? new DatabaseUnavailableError((e as Error).message, e) : e;
}

/** The catalogue's error for a SQLite failure that is the disk's state, else the failure as it was. */
export function fromSqlite(e: unknown): unknown {
  return (e as { code?: unknown })?.code === 'SQLITE_FULL' ? new DatabaseFullError((e as Error).message, e) : e;
}

/**
 * The database was migrated by a newer release than this one: a plain refusal (exit 1), not an internal error
 * (docs/deploying.md, "Upgrading a cluster").
 */
export function schemaTooNew(current: number, latest: number): ReleaseTooOldError {
  return new ReleaseTooOldError(
    `the database's schema (version ${current}) was upgraded by a newer ferry; this one knows versions up to ${latest} and does not run on it: run the newer release here, or restore the database from before the upgrade (docs/deploying.md, "Upgrading a cluster")`,
  );
}
