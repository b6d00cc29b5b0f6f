import type { Selectable } from 'kysely';
import type { MailDelivery } from '../domain/model';
import type { MailQueueRepository, OutgoingMessage, QueuedMail, TrackingTarget } from '../domain/ports';
import { countsByStatus, slices, type Db, type RepoContext } from './context';
import type { MailQueueTable } from './schema';

/** The outgoing mail queue: rows are pending, then sent or failed, and kept until purge removes them. */
export class MailQueueRepo implements MailQueueRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async enqueue(
    msg: OutgoingMessage,
    now: number,
    target: { type: TrackingTarget; id: number } | null,
  ): Promise<number> {
    const { id } = await this.db
      .insertInto('mail_queue')
      .values({
        created: now,
        to_addr: msg.to,
        message: JSON.stringify(msg),
        status: 'pending',
        attempts: 0,
        next_attempt: now,
        target_type: target?.type ?? null,
        target_id: target?.id ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  }

  /**
   * One UPDATE … WHERE id IN (the due rows) RETURNING: atomic on SQLite (one writer) and, with FOR UPDATE SKIP
   * LOCKED on PostgreSQL, two nodes claiming at once take disjoint messages without waiting for each other.
   */
  async claimDue(now: number, until: number, limit: number, node: string | null = null): Promise<QueuedMail[]> {
    // Due rows still naming a claimer: claims that lapsed (that node died, or lost the database). Read only to
    // say in the log whose work is taken over; the claim itself is the one statement below.
    const lapsed = new Map(
      (
        await this.db
          .selectFrom('mail_queue')
          .select(['id', 'claimed_by'])
          .where('status', '=', 'pending')
          .where('next_attempt', '<=', now)
          .where('claimed_by', 'is not', null)
          .orderBy('next_attempt')
          .orderBy('id')
          .limit(limit)
          .execute()
      ).map((r) => [r.id, r.claimed_by]),
    );
    const rows = await this.db
      .updateTable('mail_queue')
      .set({ next_attempt: until, claimed_by: node })
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
      if (mail) out.push({ ...mail, takenFrom: lapsed.get(r.id) ?? null });
      // One damaged row must not block every message queued after it.
      else await this.markFailed(r.id, 'unreadable queued message');
    }
    return out;
  }

  async renewClaims(ids: number[], node: string, held: number, until: number): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .updateTable('mail_queue')
      .set({ next_attempt: until })
      .where('id', 'in', ids)
      .where('status', '=', 'pending')
      .where('claimed_by', '=', node)
      .where('next_attempt', '=', held)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }

  async nextDue(now: number): Promise<number | null> {
    const row = await this.db
      .selectFrom('mail_queue')
      .select((eb) => eb.fn.min('next_attempt').as('t'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.t === null || row?.t === undefined ? null : Math.max(0, Number(row.t) - now);
  }

  async markSent(id: number, now: number): Promise<void> {
    await this.db
      .updateTable('mail_queue')
      .set((eb) => ({
        status: 'sent',
        sent: now,
        attempts: eb('attempts', '+', 1),
        last_error: null,
        claimed_by: null,
      }))
      .where('id', '=', id)
      .execute();
  }

  async markRetry(id: number, next: number, error: string): Promise<void> {
    await this.db
      .updateTable('mail_queue')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt: next, last_error: error, claimed_by: null }))
      .where('id', '=', id)
      .execute();
  }

  async markFailed(id: number, error: string): Promise<void> {
    await this.db
      .updateTable('mail_queue')
      .set((eb) => ({ status: 'failed', attempts: eb('attempts', '+', 1), last_error: error, claimed_by: null }))
      .where('id', '=', id)
      .execute();
  }

  async requeueUndelivered(target: TrackingTarget, targetId: number, now: number): Promise<boolean> {
    const latest = await this.latest(target, targetId);
    const state = latest ? deliveryOf(latest).state : null;
    if (!latest || (state !== 'deferred' && state !== 'bounced')) return false;
    // A fresh row in all but id: due now, its retry window (created) and backoff (attempts) start again. The
    // status check keeps a concurrent delivery's outcome: a message sent meanwhile is not queued again.
    const res = await this.db
      .updateTable('mail_queue')
      .set({
        status: 'pending',
        created: now,
        next_attempt: now,
        attempts: 0,
        last_error: null,
        sent: null,
        claimed_by: null,
      })
      .where('id', '=', latest.id)
      .where('status', '=', latest.status)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async deliveryFor(target: TrackingTarget, ids: number[]): Promise<Map<number, MailDelivery>> {
    const out = new Map<number, MailDelivery>();
    for (const part of slices([...new Set(ids)])) {
      // Rows in id order: the last one seen for a target is its latest mail.
      const rows = await this.db
        .selectFrom('mail_queue')
        .select(DELIVERY_COLUMNS)
        .where('target_type', '=', target)
        .where('target_id', 'in', part)
        .orderBy('id')
        .execute();
      for (const r of rows) out.set(r.target_id!, deliveryOf(r));
    }
    return out;
  }

  private latest(target: TrackingTarget, targetId: number) {
    return this.db
      .selectFrom('mail_queue')
      .select(DELIVERY_COLUMNS)
      .where('target_type', '=', target)
      .where('target_id', '=', targetId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  counts(): Promise<Record<string, number>> {
    return countsByStatus(this.db, 'mail_queue');
  }
}

const DELIVERY_COLUMNS = [
  'id',
  'target_id',
  'status',
  'attempts',
  'last_error',
  'created',
  'sent',
  'next_attempt',
] as const;
export type DeliveryRow = Pick<Selectable<MailQueueTable>, (typeof DELIVERY_COLUMNS)[number]>;

/**
 * A row's outcome as the owner sees it. Pending with an error is a deferral (a pending row without one may
 * be claimed and in delivery right now: still queued); failed is a bounce or a message given up.
 */
export function deliveryOf(r: DeliveryRow): MailDelivery {
  const num = (v: number | string | null) => (v === null ? null : Number(v));
  const base = { reason: r.last_error, attempts: Number(r.attempts), nextAttempt: null, date: Number(r.created) };
  if (r.status === 'sent') return { ...base, state: 'sent', reason: null, date: num(r.sent) ?? Number(r.created) };
  if (r.status === 'failed') return { ...base, state: 'bounced' };
  if (r.last_error !== null) return { ...base, state: 'deferred', nextAttempt: num(r.next_attempt) };
  return { ...base, state: 'queued' };
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
