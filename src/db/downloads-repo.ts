import type { Db } from './connection';
import type { DownloadStore } from '../domain/downloads';
import type { FileRecord, Recipient, Transfer } from '../domain/model';
import { FileRow, RecipientRow, toFile, toRecipient, toTransfer, TransferRow } from './rows';

/** The queries of the recipients' side: token lookup, the files to serve, who received what. */
export class DownloadsRepo implements DownloadStore {
  constructor(private readonly db: Db) {}

  recipientByToken(token: string): Recipient | undefined {
    const row = this.db.prepare('SELECT * FROM recipients WHERE token = ? AND deleted IS NULL').get(token) as RecipientRow | undefined;
    return row ? toRecipient(row) : undefined;
  }

  transfer(id: number): Transfer | undefined {
    const row = this.db.prepare('SELECT * FROM transfers WHERE id = ?').get(id) as TransferRow | undefined;
    return row ? toTransfer(row) : undefined;
  }

  files(transferId: number): FileRecord[] {
    return (this.db.prepare('SELECT * FROM files WHERE transfer_id = ? AND deleted IS NULL ORDER BY id').all(transferId) as FileRow[]).map(toFile);
  }

  touchRecipient(recipientId: number, now: number): void {
    this.db.prepare('UPDATE recipients SET last_activity = ? WHERE id = ?').run(now, recipientId);
  }

  markReceived(recipientId: number, fileIds: number[], allFileIds: number[], now: number): boolean {
    return this.db.transaction(() => {
      const had = this.hasAll(recipientId, allFileIds);
      const ins = this.db.prepare('INSERT OR IGNORE INTO recipient_downloads (recipient_id, file_id, date) VALUES (?, ?, ?)');
      for (const id of fileIds) ins.run(recipientId, id, now);
      return !had && this.hasAll(recipientId, allFileIds);
    }).immediate();
  }

  private hasAll(recipientId: number, fileIds: number[]): boolean {
    if (fileIds.length === 0) return false;
    const row = this.db
      .prepare('SELECT COUNT(*) AS n FROM recipient_downloads WHERE recipient_id = ? AND file_id IN (SELECT value FROM json_each(?))')
      .get(recipientId, JSON.stringify(fileIds)) as { n: number };
    return row.n === fileIds.length;
  }
}
