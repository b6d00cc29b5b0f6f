import { sql } from 'kysely';
import type { FrequentRecipientRepository } from '../domain/ports';
import type { Db, RepoContext } from './context';

/** Frequent recipients: one row per user and address, with when it was last used and an order within a second. */
export class FrequentRecipientsRepo implements FrequentRecipientRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async remember(userId: string, emails: string[], now: number): Promise<void> {
    const list = [...new Set(emails.filter(Boolean).map((e) => e.toLowerCase()))];
    if (!list.length) return;
    const top = await this.db
      .selectFrom('frequent_recipients')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    let seq = Number(top?.seq ?? 0);
    for (const email of list) {
      seq += 1;
      await this.db
        .insertInto('frequent_recipients')
        .values({ user_id: userId, email, last_used: now, seq })
        .onConflict((oc) => oc.columns(['user_id', 'email']).doUpdateSet({ last_used: now, seq }))
        .execute();
    }
  }

  async list(userId: string, contains: string | null, limit: number): Promise<string[]> {
    let q = this.db.selectFrom('frequent_recipients').select('email').where('user_id', '=', userId);
    // A literal substring test: LIKE would take % and _ in the filter as wildcards.
    const find =
      this.ctx.dialect === 'postgres' ? sql`strpos(email, lower(${contains}))` : sql`instr(email, lower(${contains}))`;
    if (contains !== null) q = q.where(sql<boolean>`${find} > 0`);
    const rows = await q.orderBy('last_used', 'desc').orderBy('seq', 'desc').limit(limit).execute();
    return rows.map((r) => r.email);
  }
}
