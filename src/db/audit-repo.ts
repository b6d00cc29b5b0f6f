import type { AuditEntry, AuthorType, TargetType } from '../domain/model';
import type { AuditRepository } from '../domain/ports';
import { type Db, type RepoContext, slices } from './context';

/** The audit log: one row per event of a Transfer, kept until purge removes the Transfer's records. */
export class AuditRepo implements AuditRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async record(e: AuditEntry): Promise<void> {
    await this.recordMany([e]);
  }

  async recordMany(entries: AuditEntry[]): Promise<void> {
    if (!this.ctx.auditEnabled() || entries.length === 0) return;
    // In slices: 13 values a row stay well under SQLite's parameter limit.
    for (const part of slices(entries, 200)) await this.db.insertInto('audit_log').values(part.map(auditRow)).execute();
  }

  async forTransfer(transferId: number): Promise<AuditEntry[]> {
    const rows = await this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('transfer_id', '=', transferId)
      .orderBy('id')
      .execute();
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
      ...(r.detail !== null && r.detail !== undefined ? { detail: r.detail } : {}),
    }));
  }
}

function auditRow(e: AuditEntry) {
  return {
    transfer_id: e.transferId,
    date: e.date,
    event: e.event,
    author_type: e.author.type,
    author_id: e.author.id,
    author_ip: e.author.ip,
    author_email: e.author.email ?? null,
    target_type: e.target.type,
    target_id: e.target.id,
    target_name: e.target.name ?? null,
    target_size: e.target.size ?? null,
    target_email: e.target.email ?? null,
    detail: e.detail ?? null,
  };
}
