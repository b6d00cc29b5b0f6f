import type { Kysely } from 'kysely';
import type { DB } from './schema';
import type { Dialect } from './migrations';

/** Users seen lately, as stored: most requests of a busy user then read nothing (see users-repo.ts). */
export interface SeenUser {
  at: number;
  lastActivity: number;
  emails: string[];
}

/**
 * What every repository of one database shares: which database it is, and the per-process memory that must
 * outlive one unit of work (caches, the signature sweep's last run).
 */
export interface RepoContext {
  dialect: Dialect;
  auditEnabled: () => boolean;
  seenUsers: Map<string, SeenUser>;
  signatureSweep: { last: number };
}

export type Db = Kysely<DB>;

/** Rows affected by an UPDATE or DELETE, on either database. */
export function affected(r: { numUpdatedRows?: bigint; numDeletedRows?: bigint } | { numUpdatedRows?: bigint; numDeletedRows?: bigint }[]): number {
  const one = Array.isArray(r) ? r[0] : r;
  return Number(one?.numUpdatedRows ?? one?.numDeletedRows ?? 0n);
}

/** Lists for `IN (…)` in slices, so no statement carries more parameters than SQLite allows. */
export function slices<T>(list: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/**
 * Runs fn in the caller's transaction when there is one, else in a transaction of its own: for repository
 * methods whose several statements must be seen together (a user's e-mail list replaced).
 */
export function atomically<T>(db: Db, fn: (db: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
