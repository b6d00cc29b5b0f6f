import type { Db } from './connection';
import type { Transfer } from '../domain/model';
import { toTransfer, TransferRow } from './rows';

/** The queries of the purge pass: what has expired, what is stale, and the deletion of old records. */
export class PurgeRepo {
  constructor(private readonly db: Db) {}

  expiredOpenTransfers(now: number): Transfer[] {
    return (this.db.prepare(`SELECT * FROM transfers WHERE status != 'closed' AND expires <= ? ORDER BY id`).all(now) as TransferRow[]).map(toTransfer);
  }

  /** Transfers never made available, created before the cut-off (abandoned uploads). */
  abandonedTransfers(createdBefore: number): Transfer[] {
    return (
      this.db.prepare(`SELECT * FROM transfers WHERE status IN ('created', 'started', 'uploading') AND created < ? ORDER BY id`).all(createdBefore) as TransferRow[]
    ).map(toTransfer);
  }

  closedBefore(closedBefore: number): Transfer[] {
    return (this.db.prepare(`SELECT * FROM transfers WHERE status = 'closed' AND closed < ? ORDER BY id`).all(closedBefore) as TransferRow[]).map(toTransfer);
  }

  /** Deletes a Transfer's records: files and recipients by cascade, its audit log and tracking errors explicitly. */
  deleteTransferRecords(id: number): void {
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM tracking_errors WHERE target_type = 'Recipient' AND target_id IN (SELECT id FROM recipients WHERE transfer_id = ?)`).run(id);
      this.db.prepare('DELETE FROM audit_log WHERE transfer_id = ?').run(id);
      this.db.prepare('DELETE FROM transfers WHERE id = ?').run(id);
    }).immediate();
  }

  /** [transferId, uid] of file data that should still exist: live files of Transfers that are not closed. */
  liveFileKeys(): Set<string> {
    const rows = this.db
      .prepare(`SELECT f.transfer_id AS t, f.uid AS u FROM files f JOIN transfers t ON t.id = f.transfer_id WHERE f.deleted IS NULL AND t.status != 'closed'`)
      .all() as { t: number; u: string }[];
    return new Set(rows.map((r) => `${r.t}/${r.u}`));
  }

  deleteOldRows(cutoff: number, now: number): Record<string, number> {
    return this.db.transaction(() => ({
      sessions: this.db.prepare('DELETE FROM sessions WHERE last_seen < ? OR created < ?').run(now - 8 * 3600, now - 7 * 86400).changes,
      mail: this.db.prepare(`DELETE FROM mail_queue WHERE status != 'pending' AND created < ?`).run(cutoff).changes,
      tracking_errors: this.db.prepare('DELETE FROM tracking_errors WHERE date < ?').run(cutoff).changes,
      signatures: this.db.prepare('DELETE FROM used_signatures WHERE expires < ?').run(now).changes,
      guests: this.db.prepare(`DELETE FROM guests WHERE status = 'closed' AND closed < ? AND id NOT IN (SELECT guest_id FROM transfers WHERE guest_id IS NOT NULL)`).run(cutoff).changes,
    })).immediate();
  }

  countOldRows(cutoff: number, now: number): Record<string, number> {
    const n = (sql: string, ...args: number[]) => (this.db.prepare(sql).get(...args) as { n: number }).n;
    return {
      sessions: n('SELECT COUNT(*) AS n FROM sessions WHERE last_seen < ? OR created < ?', now - 8 * 3600, now - 7 * 86400),
      mail: n(`SELECT COUNT(*) AS n FROM mail_queue WHERE status != 'pending' AND created < ?`, cutoff),
      tracking_errors: n('SELECT COUNT(*) AS n FROM tracking_errors WHERE date < ?', cutoff),
      signatures: n('SELECT COUNT(*) AS n FROM used_signatures WHERE expires < ?', now),
      guests: n(`SELECT COUNT(*) AS n FROM guests WHERE status = 'closed' AND closed < ? AND id NOT IN (SELECT guest_id FROM transfers WHERE guest_id IS NOT NULL)`, cutoff),
    };
  }
}
