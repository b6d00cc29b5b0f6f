import { Errors, ServiceError } from '../domain/errors';

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

/**
 * PostgreSQL unreachable, shutting down or out of connections: no connection (ECONNREFUSED), SQLSTATE classes 08
 * (connection exception) and 57P (operator intervention: shutdown, crash), and 53300 (too many connections).
 */
export function isPostgresUnavailable(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string') return false;
  return code === 'ECONNREFUSED' || code.startsWith('08') || code.startsWith('57P') || code === '53300';
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
  if ((e as { code?: unknown })?.code === '53100') return new DatabaseFullError((e as Error).message, e);
  return isPostgresUnavailable(e) ? new DatabaseUnavailableError((e as Error).message, e) : e;
}

/** The catalogue's error for a SQLite failure that is the disk's state, else the failure as it was. */
export function fromSqlite(e: unknown): unknown {
  return (e as { code?: unknown })?.code === 'SQLITE_FULL' ? new DatabaseFullError((e as Error).message, e) : e;
}
