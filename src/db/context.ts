import type { AccountOwner } from '../domain/ports';
import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from './schema';
import type { Dialect } from './migrations';
import type { Gate } from '../util/gate';

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
  /** SQLite: answers a SELECT at once when the connection is free, else undefined (see sqlite-driver.ts). */
  readNow?: (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;
  auditEnabled: () => boolean;
  seenUsers: Map<string, SeenUser>;
  /** Whose each account is, as read in the last second (users-repo.ts, owner()). */
  owners: Map<string, { at: number; owner: AccountOwner }>;
  /** Each user's language, as read in the last second (users-repo.ts, lang()). */
  langs: Map<string, { at: number; lang: string | null }>;
  signatureSweep: { last: number };
  /** PostgreSQL: the turns of the heaviest reads, a page of Transfers with everything shown beside them. */
  heavyReads?: Gate;
}

export type Db = Kysely<DB>;

/** fn in a turn of the context's heavy reads, if it has them (PostgreSQL), else at once. */
export function heavyRead<T>(ctx: RepoContext, fn: () => Promise<T>): Promise<T> {
  return ctx.heavyReads ? ctx.heavyReads.run(fn) : fn();
}

/** Rows affected by an UPDATE or DELETE, on either database. */
export function affected(
  r: { numUpdatedRows?: bigint; numDeletedRows?: bigint } | { numUpdatedRows?: bigint; numDeletedRows?: bigint }[],
): number {
  const one = Array.isArray(r) ? r[0] : r;
  return Number(one?.numUpdatedRows ?? one?.numDeletedRows ?? 0n);
}

/** Lists for `IN (…)` in slices, so no statement carries more parameters than SQLite allows. */
/** How many rows of a table with a `status` column are in each status (the metrics, the mail queue's counts). */
export async function countsByStatus(db: Db, table: 'transfers' | 'mail_queue'): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom(table)
    .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

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

/**
 * Runs a SELECT: on SQLite outside a unit of work through the read fast path when the connection is free, else
 * through Kysely. For the statements every request makes (the Transfer, its files and recipients, the user).
 */
export async function rows<T>(
  db: Db,
  ctx: RepoContext,
  q: { compile(): { sql: string; parameters: readonly unknown[] }; execute(): Promise<T[]> },
): Promise<T[]> {
  if (ctx.readNow && !db.isTransaction) {
    const c = q.compile();
    const got = ctx.readNow(c.sql, c.parameters);
    if (got) return got as T[];
  }
  return q.execute();
}

export async function firstRow<T>(
  db: Db,
  ctx: RepoContext,
  q: { compile(): { sql: string; parameters: readonly unknown[] }; execute(): Promise<T[]> },
): Promise<T | undefined> {
  return (await rows(db, ctx, q))[0];
}

const numberedCache = new Map<string, string>();

/**
 * A fixed SELECT with `?` placeholders, bypassing Kysely's builder and compiler: for the few statements every
 * request makes, where building and compiling the query cost about as much as running it (measured on GET
 * /transfer/{id}: docs/performance.md). Parameters are bound as always.
 */
export async function selectSql<T>(db: Db, ctx: RepoContext, text: string, params: unknown[]): Promise<T[]> {
  if (ctx.readNow && !db.isTransaction) {
    const got = ctx.readNow(text, params);
    if (got) return got as T[];
  }
  return runSql<T>(db, ctx, text, params);
}

/**
 * A fixed statement with `?` placeholders run through Kysely's executor (in the caller's transaction when there
 * is one), without its builder and compiler: for the statements of every uploaded chunk. Its rows (a SELECT or
 * RETURNING) are returned. On PostgreSQL `?` becomes `$n`.
 */
export async function runSql<T>(db: Db, ctx: RepoContext, text: string, params: unknown[]): Promise<T[]> {
  return (await db.executeQuery<T>(CompiledQuery.raw(numbered(ctx, text), params))).rows;
}

function numbered(ctx: RepoContext, text: string): string {
  if (ctx.dialect !== 'postgres') return text;
  let sqlText = numberedCache.get(text);
  if (!sqlText) {
    let n = 0;
    sqlText = text.replace(/\?/g, () => `$${++n}`);
    numberedCache.set(text, sqlText);
  }
  return sqlText;
}

/**
 * The statements PostgreSQL keeps prepared, by their text: each connection parses and plans one once, under its
 * name, and then only binds and runs it (src/db/postgres.ts). For the few fixed statements of every list page,
 * where parsing and planning were a third of the server's time for them (docs/performance.md, "Scale").
 */
export const preparedOnPostgres = new Map<string, string>();

/**
 * `IN` a list of ids bound as one parameter (idsParam), so that the statement's text is the same for every
 * list's length: `= any(?)` of an array on PostgreSQL, the values of a JSON list on SQLite.
 */
export function amongIds(dialect: Dialect): string {
  return dialect === 'postgres' ? '= any(?::bigint[])' : 'in (select value from json_each(?))';
}

/** The parameter amongIds() takes: the ids themselves on PostgreSQL, their JSON text on SQLite. */
export function idsParam(ctx: RepoContext, ids: number[]): number[] | string {
  return ctx.dialect === 'postgres' ? ids : JSON.stringify(ids);
}

/** selectSql() of a statement PostgreSQL keeps prepared (preparedOnPostgres); on SQLite the same as selectSql(). */
export function selectPrepared<T>(db: Db, ctx: RepoContext, text: string, params: unknown[]): Promise<T[]> {
  const sent = numbered(ctx, text);
  if (ctx.dialect === 'postgres' && !preparedOnPostgres.has(sent))
    preparedOnPostgres.set(sent, `ferry_${preparedOnPostgres.size + 1}`);
  return selectSql<T>(db, ctx, text, params);
}
