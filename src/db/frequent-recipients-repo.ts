import type { Db } from './connection';
import type { FrequentRecipientStore } from '../domain/frequent-recipients';

/** Frequent recipients: one row per user and address, with the time it was last used. */
export class FrequentRecipientsRepo implements FrequentRecipientStore {
  constructor(private readonly db: Db) {}

  remember(userId: string, emails: string[], now: number): void {
    // Delete and re-insert so that rowid orders uses within the same second too.
    const del = this.db.prepare('DELETE FROM frequent_recipients WHERE user_id = ? AND email = ?');
    const ins = this.db.prepare('INSERT INTO frequent_recipients (user_id, email, last_used) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const e of emails) {
        if (!e) continue;
        del.run(userId, e.toLowerCase());
        ins.run(userId, e.toLowerCase(), now);
      }
    })();
  }

  list(userId: string, contains: string | null, limit: number): string[] {
    const rows = this.db
      .prepare(
        `SELECT email FROM frequent_recipients WHERE user_id = ? AND (? IS NULL OR instr(email, lower(?)) > 0)
         ORDER BY last_used DESC, rowid DESC LIMIT ?`,
      )
      .all(userId, contains, contains, limit) as { email: string }[];
    return rows.map((r) => r.email);
  }
}
