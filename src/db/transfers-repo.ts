import type { Db } from './connection';
import type { FileRecord, Recipient, Transfer, TransferStatus } from '../domain/model';
import type { NewFile, NewRecipient, NewTransfer, TransferStore } from '../domain/transfer-store';
import { FileRow, RecipientRow, toFile, toRecipient, toTransfer, TransferRow } from './rows';
import { addRange, coveredBytes, Range } from '../domain/ranges';

/** Transfers with their files and recipients. Multi-row changes run in one transaction. */
export class TransfersRepo implements TransferStore {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  create(t: NewTransfer, files: NewFile[], recipients: NewRecipient[]): number {
    return this.transaction(() => {
      const id = Number(
        this.db
          .prepare(
            `INSERT INTO transfers (user_id, user_email, guest_id, subject, message, options, status, lang, created, expires, roundtrip_token, encryption)
             VALUES (?, ?, ?, ?, ?, ?, 'created', ?, ?, ?, ?, ?)`,
          )
          .run(t.userId, t.userEmail, t.guestId, t.subject, t.message, JSON.stringify(t.options), t.lang, t.created, t.expires, t.roundtripToken, t.encryption ? JSON.stringify(t.encryption) : null)
          .lastInsertRowid,
      );
      const insFile = this.db.prepare(
        'INSERT INTO files (transfer_id, uid, name, size, mime_type, cid, created, iv, aead) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const f of files) insFile.run(id, f.uid, f.name, f.size, f.mimeType, f.cid, t.created, f.iv ?? null, f.aead ?? null);
      for (const r of recipients) this.addRecipient(id, r, t.created);
      return id;
    });
  }

  find(id: number): Transfer | undefined {
    const row = this.db.prepare('SELECT * FROM transfers WHERE id = ?').get(id) as TransferRow | undefined;
    return row ? toTransfer(row) : undefined;
  }

  listOfUser(userId: string): Transfer[] {
    return (this.db.prepare('SELECT * FROM transfers WHERE user_id = ? ORDER BY id DESC').all(userId) as TransferRow[]).map(toTransfer);
  }

  listOfGuest(guestId: number): Transfer[] {
    return (this.db.prepare('SELECT * FROM transfers WHERE guest_id = ? ORDER BY id DESC').all(guestId) as TransferRow[]).map(toTransfer);
  }

  listAll(): Transfer[] {
    return (this.db.prepare('SELECT * FROM transfers ORDER BY id DESC').all() as TransferRow[]).map(toTransfer);
  }

  setStatus(id: number, status: TransferStatus, now: number, reason: string | null = null): void {
    if (status === 'available') this.db.prepare('UPDATE transfers SET status = ?, made_available = ? WHERE id = ?').run(status, now, id);
    else if (status === 'closed') this.db.prepare('UPDATE transfers SET status = ?, closed = ?, closed_reason = ? WHERE id = ?').run(status, now, reason, id);
    else this.db.prepare('UPDATE transfers SET status = ? WHERE id = ?').run(status, id);
  }

  /** Moves created/started to uploading once; true when this call did it (the first chunk). */
  markUploading(id: number): boolean {
    return this.db.prepare(`UPDATE transfers SET status = 'uploading' WHERE id = ? AND status IN ('created', 'started')`).run(id).changes > 0;
  }

  extendExpiry(id: number, expires: number): void {
    this.db.prepare('UPDATE transfers SET expires = ?, expiry_extensions_used = expiry_extensions_used + 1 WHERE id = ?').run(expires, id);
  }

  files(transferId: number): FileRecord[] {
    return (this.db.prepare('SELECT * FROM files WHERE transfer_id = ? AND deleted IS NULL ORDER BY id').all(transferId) as FileRow[]).map(toFile);
  }

  findFile(id: number): FileRecord | undefined {
    const row = this.db.prepare('SELECT * FROM files WHERE id = ? AND deleted IS NULL').get(id) as FileRow | undefined;
    return row ? toFile(row) : undefined;
  }

  fileUids(transferId: number): string[] {
    return (this.db.prepare('SELECT uid FROM files WHERE transfer_id = ? AND deleted IS NULL').all(transferId) as { uid: string }[]).map((r) => r.uid);
  }

  /** Merges a written range into the file's record; read-merge-write under the write lock. */
  recordRange(fileId: number, start: number, end: number): FileRecord | undefined {
    return this.transaction(() => {
      const row = this.db
        .prepare(
          `SELECT f.ranges FROM files f JOIN transfers t ON t.id = f.transfer_id
           WHERE f.id = ? AND f.deleted IS NULL AND t.status <> 'closed'`,
        )
        .get(fileId) as { ranges: string } | undefined;
      if (!row) return undefined;
      const ranges = addRange(JSON.parse(row.ranges) as Range[], start, end);
      this.db.prepare('UPDATE files SET ranges = ?, received = ? WHERE id = ?').run(JSON.stringify(ranges), coveredBytes(ranges), fileId);
      return toFile(this.db.prepare('SELECT * FROM files WHERE id = ?').get(fileId) as FileRow);
    });
  }

  completeFile(fileId: number, crc32: number, sha256: string): boolean {
    const sql = `UPDATE files SET complete = 1, crc32 = ?, sha256 = ?
                 WHERE id = ? AND deleted IS NULL AND transfer_id IN (SELECT id FROM transfers WHERE status <> 'closed')`;
    return this.db.prepare(sql).run(crc32, sha256, fileId).changes > 0;
  }

  deleteFile(fileId: number, now: number): void {
    this.db.prepare('UPDATE files SET deleted = ? WHERE id = ?').run(now, fileId);
  }

  recipients(transferId: number): Recipient[] {
    return (this.db.prepare('SELECT * FROM recipients WHERE transfer_id = ? AND deleted IS NULL ORDER BY id').all(transferId) as RecipientRow[]).map(toRecipient);
  }

  findRecipient(id: number): Recipient | undefined {
    const row = this.db.prepare('SELECT * FROM recipients WHERE id = ? AND deleted IS NULL').get(id) as RecipientRow | undefined;
    return row ? toRecipient(row) : undefined;
  }

  addRecipient(transferId: number, r: NewRecipient, now: number): number {
    return Number(
      this.db
        .prepare('INSERT INTO recipients (transfer_id, email, token, lang, created) VALUES (?, ?, ?, ?, ?)')
        .run(transferId, r.email, r.token, r.lang, now).lastInsertRowid,
    );
  }

  deleteRecipient(id: number, now: number): void {
    this.db.prepare('UPDATE recipients SET deleted = ? WHERE id = ?').run(now, id);
  }
}
