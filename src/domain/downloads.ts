import { Errors } from './errors';
import type { FileRecord, Recipient, Transfer } from './model';
import type { Clock, Notifier, Repositories, UnitOfWork } from './ports';

export type { PositionalReader } from './ports';

export interface DownloadAccess {
  transfer: Transfer;
  recipient: Recipient;
  files: FileRecord[];
}

export type DownloadKind = 'file' | 'archive';

/** Who downloads, for the audit log. */
export interface Downloader {
  ip: string | null;
}

export interface DownloadDeps {
  repos: Repositories;
  uow: UnitOfWork;
  notifier: Notifier;
  clock: Clock;
}

/**
 * The recipients' side: a download token opens its own Transfer only, and only while it is available and
 * unexpired. Starts and ends of downloads are audited; once a recipient has received every file whole the
 * owner is told (email_download_complete), once.
 */
export class DownloadsService {
  constructor(private readonly d: DownloadDeps) {}

  /** Resolves a token, or explains why it opens nothing: unknown 404, expired 410, closed 410. */
  async access(token: unknown): Promise<DownloadAccess> {
    if (typeof token !== 'string' || token.length < 16 || token.length > 128) throw Errors.transferNotFound('token');
    const recipient = await this.d.repos.transfers.recipientByToken(token);
    if (!recipient && (await this.d.repos.transfers.recipientTokenWithdrawn(token))) throw Errors.recipientWithdrawn('token');
    const transfer = recipient ? await this.d.repos.transfers.find(recipient.transferId) : undefined;
    if (!recipient || !transfer) throw Errors.transferNotFound('token');
    const now = this.d.clock();
    if (transfer.expires <= now || transfer.closedReason === 'expired') throw Errors.transferExpired();
    if (transfer.status === 'closed') throw Errors.transferClosed();
    if (transfer.status !== 'available') throw Errors.transferNotFound('token');
    return { transfer, recipient, files: await this.d.repos.transfers.files(transfer.id) };
  }

  /** The files named by files_ids (all of them when none are named); an id of another Transfer is not found. */
  select(access: DownloadAccess, ids: number[] | null): FileRecord[] {
    if (!ids || ids.length === 0) return access.files;
    const byId = new Map(access.files.map((f) => [f.id, f]));
    const picked: FileRecord[] = [];
    for (const id of new Set(ids)) {
      const f = byId.get(id);
      if (!f) throw Errors.fileNotFound('files_ids');
      picked.push(f);
    }
    if (picked.length === 0) throw Errors.fileNotFound('files_ids');
    return picked;
  }

  /** The recipient opened the download page. */
  async viewed(access: DownloadAccess): Promise<void> {
    await this.d.repos.transfers.touchRecipient(access.recipient.id, this.d.clock());
  }

  async started(access: DownloadAccess, files: FileRecord[], kind: DownloadKind, who: Downloader): Promise<void> {
    const now = this.d.clock();
    await this.d.uow.run(async (tx) => {
      await tx.transfers.touchRecipient(access.recipient.id, now);
      await this.record(tx, access, files, kind === 'archive' ? 'archive_download_started' : 'download_started', who, now);
    });
  }

  /**
   * A response finished. `wholeFiles` are the files whose every byte has now been sent to this recipient (a
   * resumed download counts when its last range completes the file).
   */
  async ended(access: DownloadAccess, files: FileRecord[], kind: DownloadKind, who: Downloader, wholeFiles: FileRecord[]): Promise<void> {
    const now = this.d.clock();
    await this.d.uow.run(async (tx) => {
      await this.record(tx, access, files, kind === 'archive' ? 'archive_download_ended' : 'download_ended', who, now);
      if (wholeFiles.length === 0) return;
      const all = (await tx.transfers.files(access.transfer.id)).map((f) => f.id);
      const completed = await tx.transfers.markReceived(access.recipient.id, wholeFiles.map((f) => f.id), all, now);
      const opts = access.transfer.options;
      if (completed && (opts.includes('email_download_complete') || opts.includes('enable_recipient_email_download_complete'))) {
        await this.d.notifier.downloadComplete(tx, access.transfer, access.recipient, await tx.transfers.files(access.transfer.id));
      }
    });
  }

  private async record(repos: Repositories, access: DownloadAccess, files: FileRecord[], event: string, who: Downloader, now: number): Promise<void> {
    const author = { type: 'Recipient' as const, id: String(access.recipient.id), ip: who.ip, email: access.recipient.email || null };
    if (event.startsWith('archive_')) {
      await repos.audit.record({ transferId: access.transfer.id, date: now, event, author, target: { type: 'Transfer', id: String(access.transfer.id) } });
      return;
    }
    for (const f of files) {
      await repos.audit.record({ transferId: access.transfer.id, date: now, event, author, target: { type: 'File', id: String(f.id), name: f.name, size: f.size } });
    }
  }
}
