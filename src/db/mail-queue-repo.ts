import type { Selectable } from 'kysely';
import type { MailQueueRepository, OutgoingMessage, QueuedMail, TrackingTarget } from '../domain/ports';
import type { Db, RepoContext } from './context';
import type { MailQueueTable } from './schema';

/** The outgoing mail queue: rows are pending, then sent or failed, and kept until purge removes them. */
export class MailQueueRepo implements MailQueueRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async enqueue(msg: OutgoingMessage, now: number, target: { type: TrackingTarget; id: number } | null): Promise<number> {
    const { id } = await this.db
      .insertInto('mail_queue')
      .values({ created: now, to_addr: msg.to, message: JSON.stringify(msg), status: 'pending', attempts: 0, next_attempt: now, target_type: target?.type ?? null, target_id: target?.id ?? null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  }

  /**
   * One UPDATE … WHERE id IN (the due rows) RETURNING: atomic on SQLite (one writer) and, with FOR UPDATE SKIP
   * LOCKED on PostgreSQL, two nodes claiming at once take disjoint messages without waiting for each other.
   */
  async claimDue(now: number, until: number, limit: number): Promise<QueuedMail[]> {
    const rows = await this.db
      .updateTable('mail_queue')
      .set({ next_attempt: until })
      .where('id', 'in', (eb) => {
        let due = eb
          .selectFrom('mail_queue')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt', '<=', now)
          .orderBy('next_attempt')
          .orderBy('id')
          .limit(limit);
        if (this.ctx.dialect === 'postgres') due = due.forUpdate().skipLocked();
        return due;
      })
      .returningAll()
      .execute();
    rows.sort((a, b) => a.id - b.id);
    const out: QueuedMail[] = [];
    for (const r of rows) {
      const mail = toMail(r);
      if (mail) out.push(mail);
      // One damaged row must not block every message queued after it.
      else await this.markFailed(r.id, 'unreadable queued message');
    }
    return out;
  }

  async nextDue(now: number): Promise<number | null> {
    const row = await this.db.selectFrom('mail_queue').select((eb) => eb.fn.min('next_attempt').as('t')).where('status', '=', 'pending').executeTakeFirst();
    return row?.t === null || row?.t === undefined ? null : Math.max(0, Number(row.t) - now);
  }

  async markSent(id: number, now: number): Promise<void> {
    await this.db.updateTable('mail_queue').set((eb) => ({ status: 'sent', sent: now, attempts: eb('attempts', '+', 1), last_error: null })).where('id', '=', id).execute();
  }

  async markRetry(id: number, next: number, error: string): Promise<void> {
    await this.db.updateTable('mail_queue').set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt: next, last_error: error })).where('id', '=', id).execute();
  }

  async markFailed(id: number, error: string): Promise<void> {
    await this.db.updateTable('mail_queue').set((eb) => ({ status: 'failed', attempts: eb('attempts', '+', 1), last_error: error })).where('id', '=', id).execute();
  }

  async counts(): Promise<Record<string, number>> {
    const rows = await this.db.selectFrom('mail_queue').select((eb) => ['status', eb.fn.countAll<number>().as('n')]).groupBy('status').execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }
}

function toMail(r: Selectable<MailQueueTable>): QueuedMail | null {
  let message: OutgoingMessage;
  try {
    message = JSON.parse(r.message) as OutgoingMessage;
  } catch {
    return null;
  }
  return {
    id: r.id,
    created: r.created,
    to: r.to_addr,
    message,
    attempts: r.attempts,
    nextAttempt: r.next_attempt,
    targetType: r.target_type as TrackingTarget | null,
    targetId: r.target_id,
  };
}
