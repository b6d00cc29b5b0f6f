import { sql } from 'kysely';
import type { ListCounts, TransferUsage, UsageRepository } from '../domain/ports';
import { affected, Db, RepoContext, selectSql, slices } from './context';

/** The statuses whose files count against quotas: every transfer not closed. */
const OPEN = ['created', 'started', 'uploading', 'available'] as const;

/** Quotas and usage figures. Sums come back as strings from PostgreSQL (BIGINT → numeric): read as numbers. */
export class UsageRepo implements UsageRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  /**
   * PostgreSQL: transaction-scoped advisory locks, so quota checks of transfers created at once (on any node)
   * run one after the other. SQLite needs none: its units of work take the write lock up front.
   */
  async holdQuota(keys: string[]): Promise<void> {
    if (this.ctx.dialect !== 'postgres') return;
    for (const key of keys) await sql`SELECT pg_advisory_xact_lock(hashtext(${`ferry:quota:${key}`}))`.execute(this.db);
  }

  /**
   * The admins' overview figures: counts read from the tables' indexes (an index-only scan of the primary key, and
   * of `(status, expires)` for the live ones), never the rows themselves.
   */
  async counts(now: number): Promise<ListCounts> {
    const n = async (q: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }) =>
      Number((await q.executeTakeFirstOrThrow()).n);
    const count = sql<number>`count(*)`.as('n');
    const [transfers, liveTransfers, guests, users, localUsers] = await Promise.all([
      n(this.db.selectFrom('transfers').select(count)),
      n(
        this.db
          .selectFrom('transfers')
          .select(count)
          .where('status', 'in', [...OPEN])
          .where('expires', '>=', now),
      ),
      n(this.db.selectFrom('guests').select(count).where('status', '=', 'available')),
      n(this.db.selectFrom('users').select(count)),
      n(this.db.selectFrom('local_accounts').select(count)),
    ]);
    return { transfers, liveTransfers, guests, users, localUsers };
  }

  /**
   * Bytes of open transfers: the running totals that the database's triggers keep in the same unit of work as
   * the rows they count (migration 29, docs/architecture.md "Usage totals"); one row per user, never a sum over
   * files.
   */
  async openBytes(userId: string | null): Promise<number> {
    if (userId === null) {
      const row = await this.db
        .selectFrom('user_usage')
        .select(sql<string | number | null>`sum(open_bytes)`.as('bytes'))
        .executeTakeFirst();
      return Number(row?.bytes ?? 0);
    }
    const [row] = await selectSql<{ open_bytes: number | string }>(
      this.db,
      this.ctx,
      'SELECT open_bytes FROM user_usage WHERE user_id = ?',
      [userId],
    );
    return Number(row?.open_bytes ?? 0);
  }

  async openBytesOf(userIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const part of slices([...new Set(userIds)])) {
      const found = await this.db
        .selectFrom('user_usage')
        .select(['user_id', 'open_bytes'])
        .where('user_id', 'in', part)
        .execute();
      for (const r of found) out.set(r.user_id, Number(r.open_bytes));
    }
    return out;
  }

  async recountOpenBytes(): Promise<Map<string, number>> {
    const found = await this.db
      .selectFrom('files as f')
      .innerJoin('transfers as t', 't.id', 'f.transfer_id')
      .where('f.deleted', 'is', null)
      .where('t.status', 'in', OPEN)
      .select(['t.user_id as user_id', sql<string | number>`sum(f.size)`.as('bytes')])
      .groupBy('t.user_id')
      .execute();
    return new Map(found.map((r) => [r.user_id, Number(r.bytes)]));
  }

  async quotaOf(userId: string): Promise<number | null> {
    const row = await this.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirst();
    return row?.quota === null || row?.quota === undefined ? null : Number(row.quota);
  }

  async setQuota(userId: string, bytes: number | null): Promise<boolean> {
    return affected(await this.db.updateTable('users').set({ quota: bytes }).where('id', '=', userId).execute()) > 0;
  }

  async quotas(): Promise<Map<string, number>> {
    const found = await this.db.selectFrom('users').select(['id', 'quota']).where('quota', 'is not', null).execute();
    return new Map(found.map((r) => [r.id, Number(r.quota)]));
  }

  async transfersSince(since: number): Promise<TransferUsage[]> {
    const found = await this.db
      .selectFrom('transfers as t')
      .leftJoin('files as f', 'f.transfer_id', 't.id')
      .select(['t.user_id as user_id', 't.created as created', sql<string | number | null>`sum(f.size)`.as('bytes')])
      .where('t.created', '>=', since)
      .groupBy(['t.id', 't.user_id', 't.created'])
      .orderBy('t.created')
      .execute();
    return found.map((r) => ({ userId: r.user_id, created: Number(r.created), bytes: Number(r.bytes ?? 0) }));
  }

  async recordStorage(day: string, bytes: number, now: number): Promise<void> {
    await this.db
      .insertInto('storage_samples')
      .values({ day, bytes, taken: now })
      .onConflict((oc) => oc.column('day').doUpdateSet({ bytes, taken: now }))
      .execute();
  }

  async storageSince(day: string): Promise<{ day: string; bytes: number }[]> {
    const found = await this.db
      .selectFrom('storage_samples')
      .select(['day', 'bytes'])
      .where('day', '>=', day)
      .orderBy('day')
      .execute();
    return found.map((r) => ({ day: r.day, bytes: Number(r.bytes) }));
  }
}
