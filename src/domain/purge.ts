import type { Transfer } from './model';
import type { Clock, FileStore, Notifier, Repositories, UnitOfWork } from './ports';
import type { GuestsService } from './guests';
import { dropTransferData } from './stored-data';
import { hasMultipartUploads } from './ports';

export interface PurgeReport {
  now: number;
  dry_run: boolean;
  transfers_expired: number;
  guests_expired: number;
  abandoned_transfers_deleted: number;
  closed_transfers_deleted: number;
  orphan_files_deleted: number;
  bytes_freed: number;
  rows_deleted: Record<string, number>;
  /** Automatic reminders sent by this pass (docs/sharing.md): to recipients, to guests. */
  reminders_sent?: { recipients: number; guests: number };
}

/** One line for logs and the CLI. */
export function formatReport(r: PurgeReport): string {
  const rows = Object.entries(r.rows_deleted)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  return `${r.dry_run ? 'purge (dry run, nothing changed): would remove' : 'purge:'} ${r.transfers_expired} transfer(s) expired, ${r.guests_expired} guest(s) expired, ${r.abandoned_transfers_deleted} abandoned transfer(s) deleted, ${r.closed_transfers_deleted} old closed transfer(s) deleted, ${r.orphan_files_deleted} orphan file(s) deleted, ${r.bytes_freed} bytes freed${rows ? `; old records: ${rows}` : ''}${r.reminders_sent && r.reminders_sent.recipients + r.reminders_sent.guests > 0 ? `; automatic reminders: ${r.reminders_sent.recipients} to recipients, ${r.reminders_sent.guests} to guests` : ''}`;
}

/** A Transfer never made available is deleted, partial data and all, this long after creation. */
export const ABANDONED_AFTER_S = 7 * 86400;

/**
 * docs/architecture.md (Purge): expiry, clean-up of abandoned uploads and old records, and file data no record points to.
 * Each step changes the database before the disk, so a pass stopped half-way leaves only what the next pass
 * (idempotent) finishes: closed Transfers' data and unreferenced files are found again by the orphan scan.
 */
export interface PurgeDeps {
  repos: Repositories;
  uow: UnitOfWork;
  files: FileStore;
  guests: GuestsService;
  notifier: Notifier;
  /** auditlog_lifetime_days: how long a closed Transfer's records are kept. */
  lifetimeDays: () => number;
  clock: Clock;
  /** Automatic reminders, sent by each pass that is not a dry run (docs/sharing.md). */
  reminders?: { run(now: number): Promise<{ recipients: number; guests: number }> };
}

export class PurgeService {
  private readonly repos: Repositories;
  private readonly uow: UnitOfWork;
  private readonly files: FileStore;
  private readonly guests: GuestsService;
  private readonly notifier: Notifier;
  private readonly lifetimeDays: () => number;
  private readonly clock: Clock;
  /** Automatic reminders, sent by each pass that is not a dry run (docs/sharing.md). */
  private readonly reminders?: { run(now: number): Promise<{ recipients: number; guests: number }> };

  // Services are built from one deps object each, as src/app.ts builds them all.
  constructor(d: PurgeDeps) {
    this.repos = d.repos;
    this.uow = d.uow;
    this.files = d.files;
    this.guests = d.guests;
    this.notifier = d.notifier;
    this.lifetimeDays = d.lifetimeDays;
    this.clock = d.clock;
    this.reminders = d.reminders;
  }

  async run(opts: { now?: number; dryRun?: boolean } = {}): Promise<PurgeReport> {
    const now = opts.now ?? this.clock();
    const dry = !!opts.dryRun;
    const cutoff = now - this.lifetimeDays() * 86400;
    const sizes = new Map((await this.files.list()).map((f) => [`${f.transferId}/${f.uid}`, f.size]));
    const report: PurgeReport = {
      now,
      dry_run: dry,
      transfers_expired: 0,
      guests_expired: 0,
      abandoned_transfers_deleted: 0,
      closed_transfers_deleted: 0,
      orphan_files_deleted: 0,
      bytes_freed: 0,
      rows_deleted: {},
    };
    const freed = (t: Transfer) => {
      for (const [k, size] of sizes) if (k.startsWith(`${t.id}/`)) report.bytes_freed += size;
    };

    for (const t of await this.repos.purge.expiredOpenTransfers(now)) {
      report.transfers_expired++;
      freed(t);
      if (!dry) await this.expire(t, now);
    }
    const guests = dry ? await this.guests.expired(now) : await this.guests.closeExpired(now);
    report.guests_expired = guests.length;

    for (const t of await this.repos.purge.abandonedTransfers(now - ABANDONED_AFTER_S)) {
      report.abandoned_transfers_deleted++;
      freed(t);
      if (!dry) await this.deleteTransfer(t.id);
    }
    for (const t of await this.repos.purge.closedBefore(cutoff)) {
      report.closed_transfers_deleted++;
      if (!dry) await this.deleteTransfer(t.id);
    }
    // Unfinished store uploads of dead files whose abort was cut short (a pass or a deletion killed halfway):
    // their ids are only in the records, and no listing of objects finds them.
    if (!dry && hasMultipartUploads(this.files)) {
      for (const u of await this.repos.purge.deadStoreUploads()) {
        await this.files.abortUpload(u.transferId, u.uid, u.upload);
        await this.repos.transfers.setStoreUpload(u.fileId, null);
      }
    }
    // File data that no live record points to (deleted files, closed Transfers, a pass interrupted earlier).
    // Listed before the live records are read: a File's record exists before its first byte, so data listed
    // here that belongs to an upload started meanwhile is still found live, never taken for an orphan.
    const stored = await this.files.list();
    const dirs = await this.files.transferDirs();
    const live = await this.repos.purge.liveFileKeys();
    for (const f of stored) {
      if (live.has(`${f.transferId}/${f.uid}`)) continue;
      if (
        dry &&
        report.transfers_expired + report.abandoned_transfers_deleted > 0 &&
        (await this.coveredAbove(f.transferId, now))
      )
        continue;
      report.orphan_files_deleted++;
      report.bytes_freed += f.size;
      if (!dry) await this.files.deleteFile(f.transferId, f.uid);
    }
    // Directories of Transfers with no live File: a deletion killed after emptying one leaves it behind.
    const liveTransfers = new Set([...live].map((k) => Number(k.slice(0, k.indexOf('/')))));
    if (!dry) for (const id of dirs) if (!liveTransfers.has(id)) await dropTransferData(this.repos, this.files, id);
    report.rows_deleted = dry
      ? await this.repos.purge.countOldRows(cutoff, now)
      : await this.repos.purge.deleteOldRows(cutoff, now);
    if (this.reminders && !dry) report.reminders_sent = await this.reminders.run(now);
    return report;
  }

  /** In a dry run, files of Transfers already counted above are not counted again as orphans. */
  private async coveredAbove(transferId: number, now: number): Promise<boolean> {
    const t = await this.repos.transfers.find(transferId);
    return (
      !!t &&
      (t.expires <= now || (t.status !== 'available' && t.status !== 'closed' && t.created < now - ABANDONED_AFTER_S))
    );
  }

  private async expire(t: Transfer, now: number): Promise<void> {
    // Status, log entry and mail in one transaction, before the data goes: a pass killed in between leaves
    // a closed Transfer whose data the orphan scan removes, never one closed with its owner left untold.
    await this.uow.run(async (tx) => {
      const cur = await tx.transfers.lock(t.id);
      if (!cur || cur.status === 'closed') return; // another purge or the owner closed it meanwhile
      const files = await tx.transfers.files(t.id);
      const recipients = await tx.transfers.recipients(t.id);
      await tx.transfers.setStatus(t.id, 'closed', now, 'expired');
      const after = (await tx.transfers.find(t.id))!;
      await tx.audit.record({
        transferId: t.id,
        date: now,
        event: 'transfer_expired',
        author: { type: 'User', id: 'ferry', ip: null },
        target: { type: 'Transfer', id: String(t.id) },
      });
      if (t.status === 'available') {
        if (t.options.includes('email_me_on_expire')) await this.notifier.transferExpired(tx, after, files, recipients);
        if (t.options.includes('email_report_on_closing'))
          await this.notifier.transferClosed(tx, after, files, recipients);
      }
    });
    await dropTransferData(this.repos, this.files, t.id);
  }

  /**
   * The data before the records here: the store's unfinished uploads are known only from the records (S3
   * multipart ids), and a pass killed in between finds the Transfer again and repeats both (idempotent).
   */
  private async deleteTransfer(id: number): Promise<void> {
    await dropTransferData(this.repos, this.files, id);
    await this.repos.purge.deleteTransferRecords(id);
  }
}
