import type { Db } from './connection';
import type { AuditEntry, AuthorType, TargetType } from '../domain/model';

interface Row {
  transfer_id: number;
  date: number;
  event: string;
  author_type: string;
  author_id: string;
  author_ip: string | null;
  author_email: string | null;
  target_type: string;
  target_id: string;
  target_name: string | null;
  target_size: number | null;
  target_email: string | null;
}

/** The audit log: one row per event of a Transfer, kept until purge removes the Transfer's records. */
export class AuditRepo {
  constructor(
    private readonly db: Db,
    private readonly enabled: () => boolean,
  ) {}

  record(e: AuditEntry): void {
    if (!this.enabled()) return;
    this.db
      .prepare(
        `INSERT INTO audit_log (transfer_id, date, event, author_type, author_id, author_ip, author_email,
           target_type, target_id, target_name, target_size, target_email) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        e.transferId, e.date, e.event, e.author.type, e.author.id, e.author.ip, e.author.email ?? null,
        e.target.type, e.target.id, e.target.name ?? null, e.target.size ?? null, e.target.email ?? null,
      );
  }

  forTransfer(transferId: number): AuditEntry[] {
    const rows = this.db.prepare('SELECT * FROM audit_log WHERE transfer_id = ? ORDER BY id').all(transferId) as Row[];
    return rows.map((r) => ({
      transferId: r.transfer_id,
      date: r.date,
      event: r.event,
      author: { type: r.author_type as AuthorType, id: r.author_id, ip: r.author_ip, email: r.author_email },
      target: {
        type: r.target_type as TargetType,
        id: r.target_id,
        ...(r.target_name !== null ? { name: r.target_name } : {}),
        ...(r.target_size !== null ? { size: r.target_size } : {}),
        ...(r.target_email !== null ? { email: r.target_email } : {}),
      },
    }));
  }
}
