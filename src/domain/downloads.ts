import { Errors } from './errors';
import type { AuditEntry, FileRecord, Recipient, Transfer } from './model';
import type { Notifier } from './notifications';
import type { Clock } from './services';

/** What downloads need from storage; the SQLite repository implements it. */
export interface DownloadStore {
  /** The recipient holding this token, unless removed. */
  recipientByToken(token: string): Recipient | undefined;
  transfer(id: number): Transfer | undefined;
  /** The Transfer's files that are not deleted, in upload order. */
  files(transferId: number): FileRecord[];
  touchRecipient(recipientId: number, now: number): void;
  /** Records files received whole; true when the recipient now has every file and did not before. */
  markReceived(recipientId: number, fileIds: number[], allFileIds: number[], now: number): boolean;
}

/** A stored file opened for reads at any position, into the caller's buffer. */
export interface PositionalReader {
  /** Reads up to `length` bytes at `position` into the start of `buf`; 0 at the end of the file. */
  read(buf: Buffer, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

export type FileOpener = (file: FileRecord) => Promise<PositionalReader>;

export interface AuditSink {
  record(entry: AuditEntry): void;
}

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

/**
 * The recipients' side: a download token opens its own Transfer only, and only while it is available and
 * unexpired. Starts and ends of downloads are audited; once a recipient has received every file whole the
 * owner is told (email_download_complete), once.
 */
export class DownloadsService {
  constructor(
    private readonly store: DownloadStore,
    private readonly audit: AuditSink,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
  ) {}

  /** Resolves a token, or explains why it opens nothing: unknown 404, expired 410, closed 410. */
  access(token: unknown): DownloadAccess {
    if (typeof token !== 'string' || token.length < 16 || token.length > 128) throw Errors.transferNotFound('token');
    const recipient = this.store.recipientByToken(token);
    const transfer = recipient ? this.store.transfer(recipient.transferId) : undefined;
    if (!recipient || !transfer) throw Errors.transferNotFound('token');
    const now = this.clock();
    if (transfer.expires <= now || transfer.closedReason === 'expired') throw Errors.transferExpired();
    if (transfer.status === 'closed') throw Errors.transferClosed();
    if (transfer.status !== 'available') throw Errors.transferNotFound('token');
    return { transfer, recipient, files: this.store.files(transfer.id) };
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
  viewed(access: DownloadAccess): void {
    this.store.touchRecipient(access.recipient.id, this.clock());
  }

  started(access: DownloadAccess, files: FileRecord[], kind: DownloadKind, who: Downloader): void {
    const now = this.clock();
    this.store.touchRecipient(access.recipient.id, now);
    this.record(access, files, kind === 'archive' ? 'archive_download_started' : 'download_started', who, now);
  }

  /**
   * A response finished. `wholeFiles` are the files whose every byte has now been sent to this recipient (a
   * resumed download counts when its last range completes the file).
   */
  ended(access: DownloadAccess, files: FileRecord[], kind: DownloadKind, who: Downloader, wholeFiles: FileRecord[]): void {
    const now = this.clock();
    this.record(access, files, kind === 'archive' ? 'archive_download_ended' : 'download_ended', who, now);
    if (wholeFiles.length === 0) return;
    const all = this.store.files(access.transfer.id).map((f) => f.id);
    const completed = this.store.markReceived(access.recipient.id, wholeFiles.map((f) => f.id), all, now);
    const opts = access.transfer.options;
    if (completed && (opts.includes('email_download_complete') || opts.includes('enable_recipient_email_download_complete'))) {
      this.notifier.downloadComplete(access.transfer, access.recipient, this.store.files(access.transfer.id));
    }
  }

  private record(access: DownloadAccess, files: FileRecord[], event: string, who: Downloader, now: number): void {
    const author = { type: 'Recipient' as const, id: String(access.recipient.id), ip: who.ip, email: access.recipient.email || null };
    if (event.startsWith('archive_')) {
      this.audit.record({ transferId: access.transfer.id, date: now, event, author, target: { type: 'Transfer', id: String(access.transfer.id) } });
      return;
    }
    for (const f of files) {
      this.audit.record({ transferId: access.transfer.id, date: now, event, author, target: { type: 'File', id: String(f.id), name: f.name, size: f.size } });
    }
  }
}
