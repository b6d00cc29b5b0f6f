import type { Clock, FileStore, Locks, Notifier, Repositories, UnitOfWork } from './ports';
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

/** Name of the lock two purge passes (CLI, servers, nodes) share, so they never overlap. */
export const PURGE_LOCK = 'purge';

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
  /** Locks every process and node shares: one purge pass at a time (runExclusive). */
  locks: Locks;
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
  private readonly locks: Locks;

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
    this.locks = d.locks;
  }

  /**
   * A pass under the purge lock, shared by the CLI, the servers' timers and every node: null, nothing done, when
   * another pass holds it. A process killed mid-pass loses the lock with its connection (PostgreSQL) or its
   * lease (SQLite); the next pass, anywhere, does what it left, since every step can be run again.
   */
  async runExclusive(
    opts: { now?: number; dryRun?: boolean } = {},
    /** Told once the lock is taken, before the pass (the server's log). */
    onLocked: () => void = () => {},
  ): Promise<PurgeReport | null> {
    const unlock = await this.locks.tryLock(PURGE_LOCK);
    if (!unlock) return null;
    onLocked();
    try {
      return await this.run(opts);
    } finally {
      await unlock().catch(() => {});
    }
  }

  async run(opts: { now?: number; dryRun?: boolean } = {}): Promise<PurgeReport> {
    const now = opts.now ?? this.clock();
    const dry = !!opts.dryRun;
    const cutoff = now - this.lifetimeDays() * 86400;
    // Bytes each Transfer holds in the store, summed once (not looked up again for every Transfer).
    const held = new Map<number, number>();
    for (const f of await this.files.list()) held.set(f.transferId, (held.get(f.transferId) ?? 0) + f.size);
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
    const freed = (id: number) => {
      report.bytes_freed += held.get(id) ?? 0;
    };

    // In batches: one unit of work closes a batch (its locks held for that batch only, docs/architecture.md,
    // Purge), then its data goes.
    for (const batch of batches(await this.repos.purge.expiredOpenTransfers(now), PURGE_BATCH)) {
      if (dry) {
        report.transfers_expired += batch.length;
        for (const id of batch) freed(id);
        continue;
      }
      for (const id of await this.expire(batch, now)) {
        report.transfers_expired++;
        freed(id);
      }
    }
    const guests = dry ? await this.guests.expired(now) : await this.guests.closeExpired(now);
    report.guests_expired = guests.length;

    for (const batch of batches(await this.repos.purge.abandonedTransfers(now - ABANDONED_AFTER_S), PURGE_BATCH)) {
      report.abandoned_transfers_deleted += batch.length;
      for (const id of batch) freed(id);
      if (!dry) await this.deleteTransfers(batch);
    }
    for (const batch of batches(await this.repos.purge.closedBefore(cutoff), PURGE_BATCH)) {
      report.closed_transfers_deleted += batch.length;
      if (!dry) await this.deleteTransfers(batch);
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
    // here that belongs to an upload started meanwhile is still found live, never taken for an orphan. The
    // records are asked about the listed Transfers a batch at a time: what is held is the listing, not every
    // live file's key as well.
    const stored = await this.files.list();
    const dirs = await this.files.transferDirs();
    const byTransfer = new Map<number, typeof stored>();
    for (const f of stored) {
      const list = byTransfer.get(f.transferId);
      if (list) list.push(f);
      else byTransfer.set(f.transferId, [f]);
    }
    const dirSet = new Set(dirs);
    for (const id of dirs) if (!byTransfer.has(id)) byTransfer.set(id, []);
    for (const batch of batches([...byTransfer.keys()], ORPHAN_BATCH)) {
      const live = await this.repos.purge.liveFileKeys(batch);
      const liveTransfers = new Set([...live].map((k) => Number(k.slice(0, k.indexOf('/')))));
      for (const transferId of batch) {
        for (const f of byTransfer.get(transferId)!) {
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
      }
      // Directories of Transfers with no live File: a deletion killed after emptying one leaves it behind.
      if (!dry)
        for (const id of batch)
          if (dirSet.has(id) && !liveTransfers.has(id)) await dropTransferData(this.repos, this.files, id);
    }
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

  /**
   * Closes a batch of expired Transfers in one unit of work: status, log entry and mail, before the data goes,
   * so a pass killed in between leaves closed Transfers whose data the orphan scan removes, never one closed
   * with its owner left untold. Returns the ids it closed (another purge or the owner may have closed one, or
   * extended it, meanwhile).
   */
  private async expire(ids: number[], now: number): Promise<number[]> {
    const closed = await this.uow.run(async (tx) => {
      const due = (await tx.transfers.lockMany(ids)).filter((t) => t.status !== 'closed' && t.expires <= now);
      if (due.length === 0) return [];
      const dueIds = due.map((t) => t.id);
      await tx.transfers.closeMany(dueIds, now, 'expired');
      await tx.audit.recordMany(
        due.map((t) => ({
          transferId: t.id,
          date: now,
          event: 'transfer_expired' as const,
          author: { type: 'User' as const, id: 'ferry', ip: null },
          target: { type: 'Transfer' as const, id: String(t.id) },
        })),
      );
      // Mail only for the Transfers whose owner asked for it: their files and recipients read in two statements.
      const mailed = due.filter(
        (t) =>
          t.status === 'available' &&
          (t.options.includes('email_me_on_expire') || t.options.includes('email_report_on_closing')),
      );
      if (mailed.length === 0) return dueIds;
      const files = await tx.transfers.filesOf(mailed.map((t) => t.id));
      const recipients = await tx.transfers.recipientsOf(mailed.map((t) => t.id));
      for (const t of mailed) {
        const after = (await tx.transfers.find(t.id))!;
        const itsFiles = files.filter((f) => f.transferId === t.id);
        const itsRecipients = recipients.filter((r) => r.transferId === t.id);
        if (t.options.includes('email_me_on_expire'))
          await this.notifier.transferExpired(tx, after, itsFiles, itsRecipients);
        if (t.options.includes('email_report_on_closing'))
          await this.notifier.transferClosed(tx, after, itsFiles, itsRecipients);
      }
      return dueIds;
    });
    for (const id of closed) await dropTransferData(this.repos, this.files, id);
    return closed;
  }

  /**
   * The data before the records here: the store's unfinished uploads are known only from the records (S3
   * multipart ids), and a pass killed in between finds the Transfers again and repeats both (idempotent).
   */
  private async deleteTransfers(ids: number[]): Promise<void> {
    for (const id of ids) await dropTransferData(this.repos, this.files, id);
    await this.repos.purge.deleteTransfersRecords(ids);
  }
}

/**
 * Transfers closed or deleted per unit of work. Each such unit holds the rows it changes, and on PostgreSQL the
 * owners' usage totals, until it commits: at this size it commits in well under a second, so a transfer created
 * meanwhile by one of those owners waits that long at most (measured in docs/performance.md, Scale).
 */
export const PURGE_BATCH = 200;
/** Transfers whose live files the orphan scan asks the records about at once. */
const ORPHAN_BATCH = 500;

function batches<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
