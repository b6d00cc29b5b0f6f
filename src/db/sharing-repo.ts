import type { ClaimProgress, DownloadClaim, SharingControls, SharingRepository, SharingView } from '../domain/ports';
import { isRangeList } from '../shared/ranges';
import type { Transfer } from '../domain/model';
import { affected, type Db, type RepoContext } from './context';
import { toTransfer, type TransferRow } from './rows';

/** Sharing controls and download claims (docs/sharing.md). */
export class SharingRepo implements SharingRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async controls(transferId: number): Promise<SharingControls> {
    const row = await this.db
      .selectFrom('transfer_sharing')
      .selectAll()
      .where('transfer_id', '=', transferId)
      .executeTakeFirst();
    return {
      downloadLimit: row?.download_limit == null ? null : Number(row.download_limit),
      passwordHash: row?.password_hash ?? null,
    };
  }

  async setControls(transferId: number, c: SharingControls): Promise<void> {
    await this.db
      .insertInto('transfer_sharing')
      .values({ transfer_id: transferId, download_limit: c.downloadLimit, password_hash: c.passwordHash })
      .onConflict((oc) =>
        oc.column('transfer_id').doUpdateSet({ download_limit: c.downloadLimit, password_hash: c.passwordHash }),
      )
      .execute();
  }

  async holdLink(recipientId: number): Promise<void> {
    // SQLite's unit of work already holds the write lock; PostgreSQL holds the recipient's row.
    if (this.ctx.dialect === 'postgres')
      await this.db.selectFrom('recipients').select('id').where('id', '=', recipientId).forUpdate().execute();
  }

  async claims(recipientId: number, fileIds: number[]): Promise<DownloadClaim[]> {
    if (fileIds.length === 0) return [];
    const found = await this.db
      .selectFrom('download_claims')
      .selectAll()
      .where('recipient_id', '=', recipientId)
      .where('file_id', 'in', fileIds)
      .orderBy('id')
      .execute();
    return found.map((r) => ({
      id: Number(r.id),
      fileId: Number(r.file_id),
      claimed: Number(r.claimed),
      done: r.done === null ? null : Number(r.done),
      sent: parseSent(r.sent),
      resent: Number(r.resent),
      // A row from before leases (active 1 but no lease) is held by no one.
      leaseUntil: r.lease === null ? 0 : Number(r.lease_until),
    }));
  }

  async claim(recipientId: number, fileId: number, now: number, lease: string, until: number): Promise<number> {
    const { id } = await this.db
      .insertInto('download_claims')
      .values({ recipient_id: recipientId, file_id: fileId, claimed: now, active: 1, lease, lease_until: until })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(id);
  }

  async take(id: number, lease: string, until: number): Promise<void> {
    await this.db
      .updateTable('download_claims')
      .set({ active: 1, lease, lease_until: until })
      .where('id', '=', id)
      .execute();
  }

  async record(id: number, lease: string, p: ClaimProgress): Promise<boolean> {
    const r = await this.db
      .updateTable('download_claims')
      .set({
        sent: JSON.stringify(p.sent),
        resent: p.resent,
        ...(p.done !== null ? { done: p.done } : {}),
        ...(p.leaseUntil === null ? { active: 0, lease: null, lease_until: 0 } : { lease_until: p.leaseUntil }),
      })
      .where('id', '=', id)
      .where('lease', '=', lease)
      .execute();
    return affected(r) > 0;
  }

  async doneCounts(transferId: number): Promise<{ recipientId: number; fileId: number; done: number }[]> {
    const found = await this.db
      .selectFrom('download_claims as c')
      .innerJoin('recipients as r', 'r.id', 'c.recipient_id')
      .select(['c.recipient_id', 'c.file_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('r.transfer_id', '=', transferId)
      .where('c.done', 'is not', null)
      .groupBy(['c.recipient_id', 'c.file_id'])
      .execute();
    return found.map((r) => ({ recipientId: Number(r.recipient_id), fileId: Number(r.file_id), done: Number(r.n) }));
  }

  async viewsOf(transferIds: number[]): Promise<Map<number, SharingView>> {
    const out = sharingViews(transferIds, [], []);
    // In slices, as every list of ids here, within the databases' limits on bound parameters.
    for (let i = 0; i < transferIds.length; i += 500) {
      const ids = transferIds.slice(i, i + 500);
      const [controls, counts] = await Promise.all([
        this.db.selectFrom('transfer_sharing').selectAll().where('transfer_id', 'in', ids).execute(),
        this.db
          .selectFrom('download_claims as c')
          .innerJoin('recipients as r', 'r.id', 'c.recipient_id')
          .select(['r.transfer_id', 'c.recipient_id', 'c.file_id', (eb) => eb.fn.countAll<number>().as('n')])
          .where('r.transfer_id', 'in', ids)
          .where('c.done', 'is not', null)
          .groupBy(['r.transfer_id', 'c.recipient_id', 'c.file_id'])
          .execute(),
      ]);
      addSharingRows(out, controls, counts);
    }
    return out;
  }

  async remindableTransfers(now: number, until: number): Promise<Transfer[]> {
    const found = await this.db
      .selectFrom('transfers')
      .selectAll()
      .where('status', '=', 'available')
      .where('expires', '>', now)
      .where('expires', '<=', until)
      .orderBy('id')
      .execute();
    return found.map((r) => toTransfer(r as TransferRow));
  }

  async recipientsWithAll(transferId: number, fileIds: number[]): Promise<Set<number>> {
    if (fileIds.length === 0) return new Set();
    const found = await this.db
      .selectFrom('recipient_downloads as d')
      .innerJoin('recipients as r', 'r.id', 'd.recipient_id')
      .select(['d.recipient_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('r.transfer_id', '=', transferId)
      .where('d.file_id', 'in', fileIds)
      .groupBy('d.recipient_id')
      .execute();
    return new Set(found.filter((r) => Number(r.n) >= fileIds.length).map((r) => Number(r.recipient_id)));
  }

  async claimReminder(
    targetType: 'Recipient' | 'Guest',
    targetId: number,
    days: number,
    now: number,
  ): Promise<boolean> {
    const r = await this.db
      .insertInto('automatic_reminders')
      .values({ target_type: targetType, target_id: targetId, days, sent: now })
      .onConflict((oc) => oc.columns(['target_type', 'target_id', 'days']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async remindersOf(
    targetType: 'Recipient' | 'Guest',
    targetIds: number[],
  ): Promise<{ targetId: number; days: number; sent: number }[]> {
    if (targetIds.length === 0) return [];
    const found = await this.db
      .selectFrom('automatic_reminders')
      .selectAll()
      .where('target_type', '=', targetType)
      .where('target_id', 'in', targetIds)
      .orderBy('sent')
      .execute();
    return found.map((r) => ({ targetId: Number(r.target_id), days: Number(r.days), sent: Number(r.sent) }));
  }
}

/** A claim's sent ranges as stored; anything unreadable as none (the claim then counts what it sends next). */
function parseSent(text: string): [number, number][] {
  try {
    const v: unknown = JSON.parse(text);
    return isRangeList(v) ? v : [];
  } catch {
    return [];
  }
}

/** Sharing views of these Transfers from rows read: no controls stored means none set, no counts none done. */
export function sharingViews(
  transferIds: number[],
  controls: SharingControlsRow[],
  counts: DoneCountRow[],
): Map<number, SharingView> {
  const out = new Map<number, SharingView>();
  for (const id of transferIds) out.set(id, { controls: { downloadLimit: null, passwordHash: null }, counts: [] });
  addSharingRows(out, controls, counts);
  return out;
}

export interface SharingControlsRow {
  transfer_id: number;
  download_limit: number | null;
  password_hash: string | null;
}
export interface DoneCountRow {
  transfer_id: number;
  recipient_id: number;
  file_id: number;
  n: number | string;
}

function addSharingRows(out: Map<number, SharingView>, controls: SharingControlsRow[], counts: DoneCountRow[]): void {
  for (const row of controls) {
    const view = out.get(Number(row.transfer_id));
    if (!view) continue;
    view.controls = {
      downloadLimit: row.download_limit == null ? null : Number(row.download_limit),
      passwordHash: row.password_hash ?? null,
    };
  }
  for (const r of counts)
    out
      .get(Number(r.transfer_id))
      ?.counts.push({ recipientId: Number(r.recipient_id), fileId: Number(r.file_id), done: Number(r.n) });
}
