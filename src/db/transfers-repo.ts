import type { FileRecord, Recipient, Transfer, TransferStatus } from '../domain/model';
import { numericAfter, type Page } from '../domain/paging';
import type {
  NewFile,
  NewRecipient,
  NewTransfer,
  StoredPiece,
  TransferOwner,
  TransferRepository,
} from '../domain/ports';
import { addRange, coveredBytes, Range } from '../shared/ranges';
import {
  affected,
  amongIds,
  countsByStatus,
  Db,
  firstRow,
  idsParam,
  RepoContext,
  rows,
  runSql,
  selectPrepared,
  selectSql,
  slices,
} from './context';
import {
  FILE_COLUMNS,
  FileRow,
  RECIPIENT_COLUMNS,
  RecipientRow,
  toFile,
  toRecipient,
  TRANSFER_COLUMNS,
  toTransfer,
  TransferRow,
} from './rows';

/** The ranges of a File still open for chunks: not deleted, its Transfer not closed (bound: id, 'closed'). */
const OPEN_FILE_RANGES =
  'SELECT f.ranges FROM files f INNER JOIN transfers t ON t.id = f.transfer_id WHERE f.id = ? AND f.deleted IS NULL AND f.complete = 0 AND t.status <> ?';

/** Transfers with their files and recipients. Multi-row changes run in the caller's unit of work. */
export class TransfersRepo implements TransferRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async create(t: NewTransfer, files: NewFile[], recipients: NewRecipient[]): Promise<number> {
    const { id } = await this.db
      .insertInto('transfers')
      .values({
        user_id: t.userId,
        user_email: t.userEmail,
        guest_id: t.guestId,
        subject: t.subject,
        message: t.message,
        options: JSON.stringify(t.options),
        status: 'created',
        lang: t.lang,
        created: t.created,
        expires: t.expires,
        roundtrip_token: t.roundtripToken,
        encryption: t.encryption ? JSON.stringify(t.encryption) : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // In slices: one statement for max_transfer_files rows of 9 values would pass SQLite's parameter limit.
    for (const part of slices(files)) {
      await this.db
        .insertInto('files')
        .values(
          part.map((f) => ({
            transfer_id: id,
            uid: f.uid,
            name: f.name,
            size: f.size,
            mime_type: f.mimeType,
            cid: f.cid,
            created: t.created,
            iv: f.iv ?? null,
            aead: f.aead ?? null,
          })),
        )
        .execute();
    }
    for (const r of recipients) await this.addRecipient(id, r, t.created);
    return id;
  }

  async find(id: number): Promise<Transfer | undefined> {
    const [row] = await selectSql<TransferRow>(this.db, this.ctx, 'SELECT * FROM transfers WHERE id = ?', [id]);
    return row ? toTransfer(row) : undefined;
  }

  async lock(id: number): Promise<Transfer | undefined> {
    let q = this.db.selectFrom('transfers').selectAll().where('id', '=', id);
    if (this.ctx.dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row ? toTransfer(row as TransferRow) : undefined;
  }

  async lockMany(ids: number[]): Promise<Transfer[]> {
    const out: Transfer[] = [];
    for (const part of slices([...new Set(ids)].sort((a, b) => a - b))) {
      let q = this.db.selectFrom('transfers').selectAll().where('id', 'in', part).orderBy('id');
      if (this.ctx.dialect === 'postgres') q = q.forUpdate();
      for (const r of await q.execute()) out.push(toTransfer(r as TransferRow));
    }
    return out;
  }

  async closeMany(ids: number[], now: number, reason: string): Promise<void> {
    for (const part of slices(ids))
      await this.db
        .updateTable('transfers')
        .set({ status: 'closed', closed: now, closed_reason: reason })
        .where('id', 'in', part)
        .execute();
  }

  async listOfUser(userId: string): Promise<Transfer[]> {
    const rows = await this.db
      .selectFrom('transfers')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .execute();
    return rows.map((r) => toTransfer(r as TransferRow));
  }

  async listOfGuest(guestId: number): Promise<Transfer[]> {
    const rows = await this.db
      .selectFrom('transfers')
      .selectAll()
      .where('guest_id', '=', guestId)
      .orderBy('id', 'desc')
      .execute();
    return rows.map((r) => toTransfer(r as TransferRow));
  }

  async listAll(): Promise<Transfer[]> {
    const rows = await this.db.selectFrom('transfers').selectAll().orderBy('id', 'desc').execute();
    return rows.map((r) => toTransfer(r as TransferRow));
  }

  countByStatus(): Promise<Record<string, number>> {
    return countsByStatus(this.db, 'transfers');
  }

  async probe(): Promise<void> {
    await this.db.selectFrom('transfers').select('id').limit(1).execute();
  }

  async listPage(owner: TransferOwner, page: Page | null): Promise<Transfer[]> {
    const { text, params } = transferPage(owner, page);
    return (await selectPrepared<TransferRow>(this.db, this.ctx, text, params)).map(toTransfer);
  }

  async filesOf(transferIds: number[]): Promise<FileRecord[]> {
    return (await this.liveRowsOf<FileRow>('files', FILE_COLUMNS.join(', '), transferIds)).map(toFile);
  }

  async recipientsOf(transferIds: number[]): Promise<Recipient[]> {
    return (await this.liveRowsOf<RecipientRow>('recipients', RECIPIENT_COLUMNS.join(', '), transferIds)).map(
      toRecipient,
    );
  }

  /**
   * The rows not deleted of these Transfers, in id order. The ids are one parameter (idsParam): one text for every
   * list's length, which PostgreSQL keeps prepared. The columns are named, not `*`: a prepared statement whose
   * result gains a column (a newer node's migration during a rolling upgrade, docs/deploying.md) fails on
   * PostgreSQL with "cached plan must not change result type".
   */
  private async liveRowsOf<R>(table: 'files' | 'recipients', columns: string, transferIds: number[]): Promise<R[]> {
    if (!transferIds.length) return [];
    return selectPrepared<R>(
      this.db,
      this.ctx,
      `SELECT ${columns} FROM ${table} WHERE transfer_id ${amongIds(this.ctx.dialect)} AND deleted IS NULL ORDER BY id`,
      [idsParam(this.ctx, transferIds)],
    );
  }

  async setStatus(id: number, status: TransferStatus, now: number, reason: string | null = null): Promise<void> {
    const q = this.db.updateTable('transfers').where('id', '=', id);
    if (status === 'available') await q.set({ status, made_available: now }).execute();
    else if (status === 'closed') await q.set({ status, closed: now, closed_reason: reason }).execute();
    else await q.set({ status }).execute();
  }

  async markUploading(id: number): Promise<boolean> {
    const r = await this.db
      .updateTable('transfers')
      .set({ status: 'uploading' })
      .where('id', '=', id)
      .where('status', 'in', ['created', 'started'])
      .execute();
    return affected(r) > 0;
  }

  async extendExpiry(id: number, expires: number): Promise<void> {
    await this.db
      .updateTable('transfers')
      .set((eb) => ({ expires, expiry_extensions_used: eb('expiry_extensions_used', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  async files(transferId: number): Promise<FileRecord[]> {
    const found = await selectSql<FileRow>(
      this.db,
      this.ctx,
      'SELECT * FROM files WHERE transfer_id = ? AND deleted IS NULL ORDER BY id',
      [transferId],
    );
    return found.map(toFile);
  }

  async findFile(id: number): Promise<FileRecord | undefined> {
    const [row] = await selectSql<FileRow>(this.db, this.ctx, 'SELECT * FROM files WHERE id = ? AND deleted IS NULL', [
      id,
    ]);
    return row ? toFile(row) : undefined;
  }

  async fileUids(transferId: number): Promise<string[]> {
    const found = await rows(
      this.db,
      this.ctx,
      this.db.selectFrom('files').select('uid').where('transfer_id', '=', transferId).where('deleted', 'is', null),
    );
    return found.map((r) => r.uid);
  }

  /**
   * Read-merge-write of the file's ranges; the row is held (PostgreSQL) or the write lock is (SQLite). Made by
   * every chunk: its two statements are fixed SQL, without Kysely's builder and compiler (docs/performance.md).
   */
  async recordRange(fileId: number, start: number, end: number, piece?: StoredPiece): Promise<FileRecord | undefined> {
    const [row] = await runSql<{ ranges: string }>(
      this.db,
      this.ctx,
      this.ctx.dialect === 'postgres' ? `${OPEN_FILE_RANGES} FOR UPDATE OF f` : OPEN_FILE_RANGES,
      [fileId, 'closed'],
    );
    if (!row) return undefined;
    if (piece) {
      // A chunk sent again replaces what it covers: pieces lying inside it are no longer needed.
      await this.db
        .deleteFrom('file_pieces')
        .where('file_id', '=', fileId)
        .where('start_at', '>=', piece.start)
        .where('end_at', '<=', piece.end)
        .execute();
      await this.db
        .insertInto('file_pieces')
        .values({
          file_id: fileId,
          start_at: piece.start,
          end_at: piece.end,
          crc32: piece.crc32,
          receipt: piece.receipt,
        })
        .execute();
    }
    const ranges = addRange(JSON.parse(row.ranges) as Range[], start, end);
    const [after] = await runSql<FileRow>(
      this.db,
      this.ctx,
      'UPDATE files SET ranges = ?, received = ? WHERE id = ? RETURNING *',
      [JSON.stringify(ranges), coveredBytes(ranges), fileId],
    );
    if (!after) throw new Error(`file ${fileId} vanished inside its unit of work`);
    return toFile(after);
  }

  async pieces(fileId: number): Promise<StoredPiece[]> {
    const found = await rows(
      this.db,
      this.ctx,
      this.db.selectFrom('file_pieces').selectAll().where('file_id', '=', fileId).orderBy('start_at').orderBy('end_at'),
    );
    return found.map((r) => ({
      start: Number(r.start_at),
      end: Number(r.end_at),
      crc32: r.crc32 === null ? null : Number(r.crc32),
      receipt: r.receipt,
    }));
  }

  async lockStoreUpload(fileId: number): Promise<{ upload: string | null } | undefined> {
    let q = this.db
      .selectFrom('files as f')
      .innerJoin('transfers as t', 't.id', 'f.transfer_id')
      .select('f.store_upload')
      .where('f.id', '=', fileId)
      .where('f.deleted', 'is', null)
      .where('t.status', '<>', 'closed');
    if (this.ctx.dialect === 'postgres') q = q.forUpdate('f');
    const row = await q.executeTakeFirst();
    return row ? { upload: row.store_upload } : undefined;
  }

  async setStoreUpload(fileId: number, upload: string | null): Promise<void> {
    await this.db.updateTable('files').set({ store_upload: upload }).where('id', '=', fileId).execute();
  }

  async storeUploads(transferId: number): Promise<{ fileId: number; uid: string; upload: string }[]> {
    const found = await rows(
      this.db,
      this.ctx,
      this.db
        .selectFrom('files')
        .select(['id', 'uid', 'store_upload'])
        .where('transfer_id', '=', transferId)
        .where('store_upload', 'is not', null),
    );
    return found.map((r) => ({ fileId: r.id, uid: r.uid, upload: r.store_upload! }));
  }

  async verifiableFiles(afterId: number, limit: number): Promise<FileRecord[]> {
    const found = await selectSql<FileRow>(
      this.db,
      this.ctx,
      'SELECT f.* FROM files f INNER JOIN transfers t ON t.id = f.transfer_id WHERE f.id > ? AND f.complete = 1 AND f.deleted IS NULL AND f.sha256 IS NOT NULL AND t.status <> ? ORDER BY f.id LIMIT ?',
      [afterId, 'closed', limit],
    );
    return found.map(toFile);
  }

  async completeFile(fileId: number, crc32: number, sha256: string | null): Promise<boolean> {
    const r = await this.db
      .updateTable('files')
      .set({ complete: 1, crc32, sha256, store_upload: null, assembly_by: null, assembly_claim: null })
      .where('id', '=', fileId)
      .where('deleted', 'is', null)
      .where('transfer_id', 'in', (eb) => eb.selectFrom('transfers').select('id').where('status', '<>', 'closed'))
      .execute();
    return affected(r) > 0;
  }

  async claimDigest(now: number, until: number): Promise<(FileRecord & { lapsed?: boolean }) | undefined> {
    // Several nodes may pick the same candidate: the conditional update lets one of them have it.
    for (let attempt = 0; attempt < 5; attempt++) {
      const candidate = await firstRow(
        this.db,
        this.ctx,
        this.db
          .selectFrom('files')
          .select(['id', 'digest_claim'])
          .where('complete', '=', 1)
          .where('sha256', 'is', null)
          .where('deleted', 'is', null)
          .where((eb) => eb.or([eb('digest_claim', 'is', null), eb('digest_claim', '<', now)]))
          .orderBy('id')
          .limit(1),
      );
      if (!candidate) return undefined;
      const r = await this.db
        .updateTable('files')
        .set({ digest_claim: until })
        .where('id', '=', candidate.id)
        .where('sha256', 'is', null)
        .where((eb) => eb.or([eb('digest_claim', 'is', null), eb('digest_claim', '<', now)]))
        .returningAll()
        .executeTakeFirst();
      if (r) return { ...toFile(r as FileRow), lapsed: candidate.digest_claim !== null };
    }
    return undefined;
  }

  async renewDigest(fileId: number, until: number): Promise<void> {
    await this.db
      .updateTable('files')
      .set({ digest_claim: until })
      .where('id', '=', fileId)
      .where('sha256', 'is', null)
      .execute();
  }

  async saveDigest(fileId: number, sha256: string): Promise<void> {
    await this.db.updateTable('files').set({ sha256, digest_claim: null }).where('id', '=', fileId).execute();
  }

  async requestAssembly(fileId: number, by: string): Promise<boolean> {
    const r = await this.db
      .updateTable('files')
      .set({ assembly_by: by })
      .where('id', '=', fileId)
      .where('complete', '=', 0)
      .where('deleted', 'is', null)
      .where('transfer_id', 'in', (eb) => eb.selectFrom('transfers').select('id').where('status', '<>', 'closed'))
      .execute();
    return affected(r) > 0;
  }

  async claimAssembly(
    now: number,
    until: number,
  ): Promise<{ file: FileRecord; by: string; lapsed?: boolean } | undefined> {
    // Several nodes may pick the same candidate: the conditional update lets one of them have it.
    for (let attempt = 0; attempt < 5; attempt++) {
      const candidate = await firstRow(
        this.db,
        this.ctx,
        this.db
          .selectFrom('files as f')
          .innerJoin('transfers as t', 't.id', 'f.transfer_id')
          .select(['f.id', 'f.assembly_claim'])
          .where('f.assembly_by', 'is not', null)
          .where('f.complete', '=', 0)
          .where('f.deleted', 'is', null)
          .where('t.status', '<>', 'closed')
          .where((eb) => eb.or([eb('f.assembly_claim', 'is', null), eb('f.assembly_claim', '<', now)]))
          .orderBy('f.id')
          .limit(1),
      );
      if (!candidate) return undefined;
      const r = await this.db
        .updateTable('files')
        .set({ assembly_claim: until })
        .where('id', '=', candidate.id)
        .where('complete', '=', 0)
        .where((eb) => eb.or([eb('assembly_claim', 'is', null), eb('assembly_claim', '<', now)]))
        .returningAll()
        .executeTakeFirst();
      if (r?.assembly_by)
        return { file: toFile(r as FileRow), by: r.assembly_by, lapsed: candidate.assembly_claim !== null };
    }
    return undefined;
  }

  async renewAssembly(fileId: number, until: number): Promise<void> {
    await this.db
      .updateTable('files')
      .set({ assembly_claim: until })
      .where('id', '=', fileId)
      .where('complete', '=', 0)
      .execute();
  }

  async releaseAssembly(fileId: number): Promise<void> {
    await this.db
      .updateTable('files')
      .set({ assembly_claim: null })
      .where('id', '=', fileId)
      .where('complete', '=', 0)
      .execute();
  }

  async requestCompletion(transferId: number, by: string): Promise<void> {
    await this.db
      .updateTable('transfers')
      .set({ complete_by: by })
      .where('id', '=', transferId)
      .where('complete_by', 'is', null)
      .execute();
  }

  async completionsDue(): Promise<{ transferId: number; by: string }[]> {
    const found = await rows(
      this.db,
      this.ctx,
      this.db
        .selectFrom('transfers')
        .select(['id', 'complete_by'])
        .where('complete_by', 'is not', null)
        .where('status', 'not in', ['available', 'closed'])
        .orderBy('id')
        .limit(100),
    );
    return found.map((r) => ({ transferId: r.id, by: r.complete_by! }));
  }

  async deleteFile(fileId: number, now: number): Promise<void> {
    await this.db.updateTable('files').set({ deleted: now }).where('id', '=', fileId).execute();
  }

  async recipients(transferId: number): Promise<Recipient[]> {
    const found = await selectSql<RecipientRow>(
      this.db,
      this.ctx,
      'SELECT * FROM recipients WHERE transfer_id = ? AND deleted IS NULL ORDER BY id',
      [transferId],
    );
    return found.map(toRecipient);
  }

  async findRecipient(id: number): Promise<Recipient | undefined> {
    const row = await this.db
      .selectFrom('recipients')
      .selectAll()
      .where('id', '=', id)
      .where('deleted', 'is', null)
      .executeTakeFirst();
    return row ? toRecipient(row as RecipientRow) : undefined;
  }

  async recipientByToken(token: string): Promise<Recipient | undefined> {
    const row = await firstRow(
      this.db,
      this.ctx,
      this.db.selectFrom('recipients').selectAll().where('token', '=', token).where('deleted', 'is', null),
    );
    return row ? toRecipient(row as RecipientRow) : undefined;
  }

  async recipientTokenWithdrawn(token: string): Promise<boolean> {
    const row = await firstRow(
      this.db,
      this.ctx,
      this.db.selectFrom('recipients').select('id').where('token', '=', token).where('deleted', 'is not', null),
    );
    return row !== undefined;
  }

  async addRecipient(transferId: number, r: NewRecipient, now: number): Promise<number> {
    const { id } = await this.db
      .insertInto('recipients')
      .values({ transfer_id: transferId, email: r.email, token: r.token, lang: r.lang, created: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  }

  async deleteRecipient(id: number, now: number): Promise<void> {
    await this.db.updateTable('recipients').set({ deleted: now }).where('id', '=', id).execute();
  }

  async touchRecipient(recipientId: number, now: number): Promise<void> {
    await this.db.updateTable('recipients').set({ last_activity: now }).where('id', '=', recipientId).execute();
  }

  /** Runs in the caller's unit of work; the recipient's row is held meanwhile, so two downloads ending at once notify once. */
  async markReceived(recipientId: number, fileIds: number[], allFileIds: number[], now: number): Promise<boolean> {
    if (this.ctx.dialect === 'postgres')
      await this.db.selectFrom('recipients').select('id').where('id', '=', recipientId).forUpdate().execute();
    const had = await this.hasAll(recipientId, allFileIds);
    for (const part of slices(fileIds)) {
      await this.db
        .insertInto('recipient_downloads')
        .values(part.map((file_id) => ({ recipient_id: recipientId, file_id, date: now })))
        .onConflict((oc) => oc.columns(['recipient_id', 'file_id']).doNothing())
        .execute();
    }
    return !had && (await this.hasAll(recipientId, allFileIds));
  }

  private async hasAll(recipientId: number, fileIds: number[]): Promise<boolean> {
    if (fileIds.length === 0) return false;
    const unique = [...new Set(fileIds)];
    let n = 0;
    for (const part of slices(unique)) {
      const row = await this.db
        .selectFrom('recipient_downloads')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('recipient_id', '=', recipientId)
        .where('file_id', 'in', part)
        .executeTakeFirstOrThrow();
      n += Number(row.n);
    }
    return n === unique.length;
  }
}

/** A select of Transfers (transferPage): its text, the same for every page of one shape, and its parameters. */
export interface TransferPageSql {
  text: string;
  params: unknown[];
  /** A page past an offset: the statement reads every row it skips, so its cost grows with the depth. */
  skipsRows: boolean;
}

/**
 * An owner's Transfers (or everyone's), newest first: one page by key or by offset, or the whole list (null). By
 * key, the index on (owner, id) or the primary key is read from the key on, never the rows before it. The columns
 * are named (liveRowsOf says why); TransferExtrasRepo.pageWithRows reads the same select as a CTE.
 */
export function transferPage(owner: TransferOwner, page: Page | null): TransferPageSql {
  // Each condition with its parameter, in the order the text binds them.
  const where: string[] = [];
  const params: unknown[] = [];
  if (owner !== 'all') {
    where.push('userId' in owner ? 'user_id = ?' : 'guest_id = ?');
    params.push('userId' in owner ? owner.userId : owner.guestId);
  }
  const after = page ? numericAfter(page) : null;
  if (after !== null) {
    where.push('id < ?');
    params.push(after);
  }
  let paging = '';
  if (page) {
    paging = after !== null ? ' limit ?' : ' limit ? offset ?';
    params.push(...(after !== null ? [page.limit] : [page.limit, page.offset]));
  }
  const filter = where.length ? ` where ${where.join(' and ')}` : '';
  return {
    text: `select ${TRANSFER_COLUMNS.join(', ')} from transfers${filter} order by id desc${paging}`,
    params,
    skipsRows: page !== null && after === null && page.offset > 0,
  };
}
