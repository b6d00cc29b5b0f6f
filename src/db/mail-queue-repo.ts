import type { Db } from './connection';

export interface QueuedMail {
  id: number;
  created: number;
  to: string;
  message: OutgoingMessage;
  attempts: number;
  nextAttempt: number;
  targetType: string | null;
  targetId: number | null;
}

/** A rendered message, as stored in the queue and handed to the transport. */
export interface OutgoingMessage {
  from: string;
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  lang: string;
}

interface Row {
  id: number;
  created: number;
  to_addr: string;
  message: string;
  attempts: number;
  next_attempt: number;
  target_type: string | null;
  target_id: number | null;
}

/** The outgoing mail queue: rows are pending, then sent or failed, and kept until purge removes them. */
export class MailQueueRepo {
  constructor(private readonly db: Db) {}

  enqueue(msg: OutgoingMessage, now: number, target: { type: string; id: number } | null): number {
    return Number(
      this.db
        .prepare(
          `INSERT INTO mail_queue (created, to_addr, message, status, attempts, next_attempt, target_type, target_id)
           VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)`,
        )
        .run(now, msg.to, JSON.stringify(msg), now, target?.type ?? null, target?.id ?? null).lastInsertRowid,
    );
  }

  due(now: number, limit: number): QueuedMail[] {
    const rows = this.db
      .prepare(`SELECT * FROM mail_queue WHERE status = 'pending' AND next_attempt <= ? ORDER BY next_attempt, id LIMIT ?`)
      .all(now, limit) as Row[];
    const out: QueuedMail[] = [];
    for (const r of rows) {
      let message: OutgoingMessage;
      try {
        message = JSON.parse(r.message) as OutgoingMessage;
      } catch {
        // One damaged row must not block every message queued after it.
        this.markFailed(r.id, 'unreadable queued message');
        continue;
      }
      out.push({
        id: r.id,
        created: r.created,
        to: r.to_addr,
        message,
        attempts: r.attempts,
        nextAttempt: r.next_attempt,
        targetType: r.target_type,
        targetId: r.target_id,
      });
    }
    return out;
  }

  /** Seconds until the next pending message is due, or null when none is pending. */
  nextDue(now: number): number | null {
    const row = this.db.prepare(`SELECT MIN(next_attempt) AS t FROM mail_queue WHERE status = 'pending'`).get() as { t: number | null };
    return row.t === null ? null : Math.max(0, row.t - now);
  }

  /**
   * Takes a due message for one delivery attempt (true) unless another process took it first: its next
   * attempt moves to `until`, so a crash mid-delivery only delays the message.
   */
  claim(id: number, now: number, until: number): boolean {
    return (
      this.db.prepare(`UPDATE mail_queue SET next_attempt = ? WHERE id = ? AND status = 'pending' AND next_attempt <= ?`).run(until, id, now)
        .changes === 1
    );
  }

  markSent(id: number, now: number): void {
    this.db.prepare(`UPDATE mail_queue SET status = 'sent', sent = ?, attempts = attempts + 1, last_error = NULL WHERE id = ?`).run(now, id);
  }

  markRetry(id: number, next: number, error: string): void {
    this.db.prepare(`UPDATE mail_queue SET attempts = attempts + 1, next_attempt = ?, last_error = ? WHERE id = ?`).run(next, error, id);
  }

  markFailed(id: number, error: string): void {
    this.db.prepare(`UPDATE mail_queue SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?`).run(error, id);
  }

  counts(): Record<string, number> {
    const rows = this.db.prepare(`SELECT status, COUNT(*) AS n FROM mail_queue GROUP BY status`).all() as { status: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** Removes sent and failed messages created before ts (purge); pending ones are kept. */
  deleteOlderThan(ts: number): number {
    return this.db.prepare(`DELETE FROM mail_queue WHERE status != 'pending' AND created < ?`).run(ts).changes;
  }
}
