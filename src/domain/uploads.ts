import { Transform, type Readable } from 'node:stream';
import { Errors } from './errors';
import type { FileRecord, Transfer } from './model';
import type { Actor } from './model';
import type {
  ChunkGuard,
  Clock,
  FileStore,
  Repositories,
  SignedBody,
  StoredFile,
  StoredPiece,
  UnitOfWork,
  WrittenChunk,
} from './ports';
import { hasMultipartUploads, hasUploadHashing } from './ports';
import { combinedCrc32 } from './pieces';
import { readDigests } from './digests';
import { dropFileData } from './stored-data';
import { isComplete } from '../shared/ranges';
import { auditAuthor, fileTarget, transferTarget } from './audit-events';
import type { GuestsService } from './guests';
import { CHUNK_OVERHEAD, encryptedSize, storedOffset } from '../shared-crypto/format';

/**
 * Where an encrypted file's bytes go (docs/encryption.md): clients name chunks by their plaintext offset and
 * send IV ‖ ciphertext ‖ tag, 32 octets more than the plaintext; chunk i is stored at i · (S + 32). Ranges
 * are recorded in plaintext offsets, so completion and `received` mean the same as for a plain file.
 */
export function storedSizeOf(t: Transfer, f: FileRecord): number {
  return t.encryption ? encryptedSize(f.size, t.encryption.chunkSize) : f.size;
}
function storedPrefix(t: Transfer, f: FileRecord, plain: number): number {
  if (!t.encryption) return plain;
  return plain >= f.size ? storedSizeOf(t, f) : storedOffset(plain, t.encryption.chunkSize);
}

function storedFileOf(t: Transfer, f: FileRecord): StoredFile {
  return { transferId: t.id, uid: f.uid, size: storedSizeOf(t, f) };
}
/**
 * The recorded ranges in the stored file's offsets: bytes there are final and never written again. Of an
 * encrypted file a chunk is recorded whole (its 32 octets of IV and tag included).
 */
function keptRanges(t: Transfer, f: FileRecord, offset: number): [number, number][] {
  if (!t.encryption) return f.ranges.map(([a, b]) => [a, b]);
  const S = t.encryption.chunkSize;
  const plain = Math.min(S, f.size - offset);
  const at = storedOffset(offset, S);
  return f.ranges.some(([a, b]) => a <= offset && b >= offset + plain) ? [[at, at + plain + CHUNK_OVERHEAD]] : [];
}

/**
 * What completing the file will need of a chunk besides its range: none when the store put the bytes at their
 * offset (no receipt) and hashes files itself (no CRC-32), as the filesystem does; two statements fewer per
 * chunk in its unit of work.
 */
function pieceOf(start: number, w: WrittenChunk): StoredPiece | undefined {
  if (w.crc32 === null && w.receipt === '') return undefined;
  return { start, end: start + w.written, crc32: w.crc32, receipt: w.receipt };
}

export interface ChunkRequest {
  offset: number;
  /** Bytes announced (X-Service-Chunk-Size or Content-Length); null when the body is streamed unannounced. */
  size: number | null;
  /** X-Service-File-Size / X-Service-Chunk-Offset when given: they must match. */
  declaredFileSize: number | null;
  declaredOffset: number | null;
  body: Readable | Buffer;
  /** The body is inside a signature checked as it streams (docs/architecture.md, Signed chunks while they stream). */
  signed?: SignedBody;
}

/**
 * Chunked uploads (spec: upload procedure). A chunk is written at its offset, in any order and in parallel, on
 * any node; its range is recorded, with the piece the store made of it (CRC-32, receipt), only after its
 * bytes are durable, so a crash never marks unwritten bytes received and completion is checked exactly. All
 * the state of an upload is in the database: a node that dies loses nothing but the chunks it was receiving.
 */
export interface UploadsDeps {
  repos: Repositories;
  uow: UnitOfWork;
  files: FileStore;
  guests: GuestsService;
  clock: Clock;
  /** The largest chunk accepted (upload_chunk_size). */
  chunkLimit: () => number;
  /** Called when a file was completed without its SHA-256 (the store cannot hash during uploads). */
  digestLater?: () => void;
  /** Called when a file's completion was left to the background (src/domain/assembly.ts). */
  assembleLater?: () => void;
}

export class UploadsService {
  /** Completions under way, by File id. */
  private readonly completing = new Map<number, Promise<FileRecord>>();
  /** Chunks being written on this node, by File id: their plaintext ranges (docs/architecture.md, Signed chunks while they stream). */
  private readonly writing = new Map<number, { start: number; end: number; done: Promise<void> }[]>();

  private readonly repos: Repositories;
  private readonly uow: UnitOfWork;
  private readonly files: FileStore;
  private readonly guests: GuestsService;
  private readonly clock: Clock;
  private readonly chunkLimit: () => number;
  private readonly digestLater: () => void;
  private readonly assembleLater: () => void;

  // Services are built from one deps object each, as src/app.ts builds them all.
  constructor(d: UploadsDeps) {
    this.repos = d.repos;
    this.uow = d.uow;
    this.files = d.files;
    this.guests = d.guests;
    this.clock = d.clock;
    this.chunkLimit = d.chunkLimit;
    this.digestLater = d.digestLater ?? (() => {});
    this.assembleLater = d.assembleLater ?? (() => {});
  }

  async getFile(id: number): Promise<FileRecord> {
    const f = await this.repos.transfers.findFile(id);
    if (!f) throw Errors.fileNotFound();
    return f;
  }

  /** Refuses a chunk before reading it: wrong state, too large, out of bounds, headers that disagree. */
  checkChunk(t: Transfer, f: FileRecord, c: Omit<ChunkRequest, 'body'>): void {
    this.assertWritable(t, f);
    if (!Number.isSafeInteger(c.offset) || c.offset < 0) throw Errors.restBadParameter('offset');
    if (c.declaredFileSize !== null && c.declaredFileSize !== f.size)
      throw Errors.restSanityCheckFailed('X-Service-File-Size');
    if (c.declaredOffset !== null && c.declaredOffset !== c.offset)
      throw Errors.restSanityCheckFailed('X-Service-Chunk-Offset');
    if (t.encryption) return this.checkEncryptedChunk(t.encryption.chunkSize, f, c);
    if (c.size !== null && c.size > this.chunkLimit()) throw Errors.storageChunkTooLarge('X-Service-Chunk-Size');
    if (c.offset + (c.size ?? 0) > f.size || (c.offset >= f.size && f.size > 0))
      throw Errors.fileChunkOutOfBounds('offset');
  }

  /**
   * An encrypted chunk is whole or nothing: it starts at a multiple of the chunk size and carries exactly that
   * chunk's plaintext length + 32 (a shorter one would leave a hole no later chunk could fill).
   */
  private checkEncryptedChunk(S: number, f: FileRecord, c: Omit<ChunkRequest, 'body'>): void {
    if (c.offset % S !== 0 || c.offset >= f.size) throw Errors.fileChunkOutOfBounds('offset');
    if (c.size !== null && c.size > S + CHUNK_OVERHEAD) throw Errors.storageChunkTooLarge('X-Service-Chunk-Size');
    if (c.size !== null && c.size - CHUNK_OVERHEAD !== Math.min(S, f.size - c.offset))
      throw Errors.restSanityCheckFailed('X-Service-Chunk-Size');
  }

  async writeChunk(actor: Actor, t: Transfer, f0: FileRecord, c: ChunkRequest): Promise<FileRecord> {
    this.checkChunk(t, f0, c);
    const span = t.encryption
      ? Math.min(t.encryption.chunkSize, f0.size - c.offset)
      : Math.min(this.chunkLimit(), f0.size - c.offset);
    // In plaintext offsets, as ranges are recorded (an encrypted chunk's body is 32 octets longer than its range).
    const end = c.offset + Math.max(t.encryption ? span : (c.size ?? span), 1);
    // One writer at a time per byte on this node: a chunk overlapping one on its way waits (its socket unread),
    // then sees what that one recorded. Recorded bytes are never written again, so no write can land in a
    // file being completed or complete.
    const body = c.body;
    // A client that goes away while its chunk waits is not waited for any longer.
    const gone = Buffer.isBuffer(body)
      ? null
      : new Promise<void>((r) => (body.destroyed ? r() : body.once('close', () => r())));
    const { waited, release } = await this.exclusive(f0.id, c.offset, end, gone);
    try {
      if (waited && !Buffer.isBuffer(body) && body.destroyed) throw Errors.badRequestBody('body ended early');
      const f = waited ? await this.getFile(f0.id) : f0;
      if (waited) this.checkChunk(t, f, c);
      const guard: ChunkGuard = { keep: keptRanges(t, f, c.offset), ...(c.signed ? { signed: c.signed } : {}) };
      if (t.encryption) return await this.writeEncryptedChunk(actor, t, t.encryption.chunkSize, f, c, guard);
      return await this.writePlainChunk(actor, t, f, c, guard);
    } finally {
      release();
    }
  }

  private async exclusive(
    fileId: number,
    start: number,
    end: number,
    gone: Promise<void> | null,
  ): Promise<{ waited: boolean; release: () => void }> {
    let waited = false;
    let left = false;
    void gone?.then(() => (left = true));
    for (let round = 0; round < 10_000 && !left; round++) {
      const busy = (this.writing.get(fileId) ?? []).filter((w) => w.start < end && w.end > start);
      if (busy.length === 0) break;
      waited = true;
      await Promise.race([...busy.map((w) => w.done), ...(gone ? [gone] : [])]);
    }
    let done!: () => void;
    const entry = { start, end, done: new Promise<void>((r) => (done = r)) };
    const list = this.writing.get(fileId) ?? [];
    list.push(entry);
    this.writing.set(fileId, list);
    return {
      waited,
      release: () => {
        const rest = (this.writing.get(fileId) ?? []).filter((w) => w !== entry);
        if (rest.length) this.writing.set(fileId, rest);
        else this.writing.delete(fileId);
        done();
      },
    };
  }

  private async writePlainChunk(
    actor: Actor,
    t: Transfer,
    f: FileRecord,
    c: ChunkRequest,
    guard: ChunkGuard,
  ): Promise<FileRecord> {
    const limit = this.chunkLimit();
    const room = Math.min(limit, f.size - c.offset);
    let w: WrittenChunk;
    try {
      w = await this.store(t, f, c.offset, c.body, c.size ?? room, c.size !== null, guard);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EOVERFLOW_CHUNK') {
        if (c.size !== null) throw Errors.restSanityCheckFailed('X-Service-Chunk-Size');
        throw room === limit ? Errors.storageChunkTooLarge() : Errors.fileChunkOutOfBounds('offset');
      }
      // A store that streams the body with its length (S3) stores nothing of a body ending short of it: with a
      // size announced, that is the size check's failure, as when the filesystem's store reports fewer bytes.
      if (code === 'ESHORT_BODY' && c.size !== null) throw Errors.restSanityCheckFailed('X-Service-Chunk-Size');
      if (code === 'ECONNRESET' || code === 'ESHORT_BODY') throw Errors.badRequestBody('body ended early');
      throw e;
    }
    if (c.size !== null && w.written !== c.size) throw Errors.restSanityCheckFailed('X-Service-Chunk-Size');
    await this.noteUploadStarted(actor, t);
    return this.record(t, f, c.offset, c.offset + w.written, pieceOf(c.offset, w));
  }

  /** Where the file's bytes go in the store, and the upload its chunks share (begun once, by whichever node comes first). */
  private async store(
    t: Transfer,
    f: FileRecord,
    offset: number,
    body: Readable | Buffer,
    expected: number,
    exact: boolean,
    guard?: ChunkGuard,
  ): Promise<WrittenChunk> {
    const file = storedFileOf(t, f);
    return this.files.writeChunk(file, offset, body, expected, await this.uploadOf(t, f, file), exact, guard);
  }

  private async uploadOf(t: Transfer, f: FileRecord, file: StoredFile): Promise<string | null> {
    const store = this.files;
    if (!hasMultipartUploads(store)) return null;
    if (f.storeUpload !== null) return f.storeUpload;
    const chunkSize = t.encryption ? t.encryption.chunkSize + CHUNK_OVERHEAD : this.chunkLimit();
    if (!store.uploadNeeded(file.size, chunkSize)) return null;
    // Under the File's row lock: two nodes receiving its first chunks at once begin one upload, not two.
    return this.uow.run(async (tx) => {
      const cur = await tx.transfers.lockStoreUpload(f.id);
      if (!cur) return null; // deleted or closed: record() says so once the chunk is in
      if (cur.upload !== null) return cur.upload;
      const upload = await store.beginUpload(file, chunkSize);
      await tx.transfers.setStoreUpload(f.id, upload);
      return upload;
    });
  }

  private async writeEncryptedChunk(
    actor: Actor,
    t: Transfer,
    S: number,
    f: FileRecord,
    c: ChunkRequest,
    guard: ChunkGuard,
  ): Promise<FileRecord> {
    const plain = Math.min(S, f.size - c.offset);
    const at = storedOffset(c.offset, S);
    let w: WrittenChunk;
    try {
      w = await this.store(t, f, at, c.body, plain + CHUNK_OVERHEAD, c.size === plain + CHUNK_OVERHEAD, guard);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EOVERFLOW_CHUNK' || code === 'ESHORT_BODY')
        throw Errors.restSanityCheckFailed('X-Service-Chunk-Size');
      if (code === 'ECONNRESET') throw Errors.badRequestBody('body ended early');
      throw e;
    }
    // A short body is not recorded: the chunk stays missing and is sent again.
    if (w.written !== plain + CHUNK_OVERHEAD) throw Errors.restSanityCheckFailed('X-Service-Chunk-Size');
    await this.noteUploadStarted(actor, t);
    return this.record(t, f, c.offset, c.offset + plain, pieceOf(at, w));
  }

  /**
   * POST /file/{id}/whole (legacy uploaders): the whole file in one stream, written from offset 0, then
   * completed like a chunked upload. `progress` is updated as bytes arrive.
   */
  async writeWhole(
    actor: Actor,
    t: Transfer,
    f: FileRecord,
    body: Readable,
    progress: { bytes_processed: number; done: boolean; error: number } | null,
  ): Promise<FileRecord> {
    this.assertWritable(t, f);
    // An encrypted file is IV ‖ ciphertext ‖ tag per chunk; only chunked uploads carry that.
    if (t.encryption) throw Errors.restBadParameter('encryption');
    // Counted on the way through (a 'data' listener would start the flow before the writer reads).
    const counted = progress
      ? body.pipe(
          new Transform({
            transform: (c: Buffer, _e, done) => ((progress.bytes_processed += c.length), done(null, c)),
          }),
        )
      : body;
    let w: WrittenChunk;
    try {
      w = await this.store(t, f, 0, counted, f.size, false);
    } catch (e) {
      if (progress) progress.error = 1;
      const code = (e as { code?: string }).code;
      if (code === 'EOVERFLOW_CHUNK') throw Errors.fileChunkOutOfBounds('file');
      if (code === 'ECONNRESET') throw Errors.badRequestBody('body ended early');
      if (code === 'ESHORT_BODY')
        throw Errors.fileIncomplete(`received ${(e as { received: number }).received} of ${f.size}`);
      throw e;
    }
    if (w.written !== f.size) {
      if (progress) progress.error = 1;
      throw Errors.fileIncomplete(`received ${w.written} of ${f.size}`);
    }
    await this.noteUploadStarted(actor, t);
    const after = await this.completeFile(actor, t, await this.record(t, f, 0, w.written, pieceOf(0, w)));
    if (progress) progress.done = true;
    return after;
  }

  /**
   * PUT /file {complete}: every byte must have arrived; the store assembles the file from the recorded pieces
   * and makes it durable; its CRC-32 is combined from theirs, its SHA-256 taken from the store when it hashed
   * during the upload, or computed later in the background (then null until done). Completions of the same File at once share one pass, so it is logged (and hashed) once.
   */
  completeFile(actor: Actor, t: Transfer, f: FileRecord): Promise<FileRecord> {
    if (f.complete) return Promise.resolve(f);
    if (t.status === 'closed') return Promise.reject(Errors.cannotAlterClosedTransfer());
    if (!isComplete(f.ranges, f.size))
      return Promise.reject(Errors.fileIncomplete(`received ${f.received} of ${f.size}`));
    let running = this.completing.get(f.id);
    if (!running) {
      running = this.completeOrQueue(actor, t, f).finally(() => this.completing.delete(f.id));
      this.completing.set(f.id, running);
    }
    return running;
  }

  /**
   * A file the store may take long to assemble (thousands of parts, or segments on S3) is completed in the
   * background: the request is recorded in the database and answered at once, with the File still incomplete
   * and `assembling`; any node's AssemblyJobs finishes it (docs/architecture.md, "Files larger than one
   * multipart upload").
   */
  private async completeOrQueue(actor: Actor, t: Transfer, f: FileRecord): Promise<FileRecord> {
    const store = this.files;
    if (f.assembling) return f;
    if (hasMultipartUploads(store) && store.assemblyIsLong(storedFileOf(t, f).size, f.storeUpload)) {
      if (!(await this.repos.transfers.requestAssembly(f.id, JSON.stringify(actor)))) {
        const now = await this.repos.transfers.findFile(f.id);
        if (!now) throw Errors.fileNotFound();
        if (now.complete) return now;
        throw Errors.cannotAlterClosedTransfer();
      }
      this.assembleLater();
      return (await this.repos.transfers.findFile(f.id)) ?? { ...f, assembling: true };
    }
    return this.finishFile(actor, t, f);
  }

  /** The background half of a completion that completeOrQueue left to AssemblyJobs. */
  async finishAssembly(actor: Actor, f: FileRecord): Promise<void> {
    const t = await this.repos.transfers.find(f.transferId);
    if (!t || t.status === 'closed' || f.complete) return;
    await this.finishFile(actor, t, f);
  }

  private async finishFile(actor: Actor, t: Transfer, f: FileRecord): Promise<FileRecord> {
    // Of an encrypted file these are the digests of the stored ciphertext: the server never sees the plaintext.
    const file = storedFileOf(t, f);
    const [pieces, fresh] = await Promise.all([this.repos.transfers.pieces(f.id), this.repos.transfers.findFile(f.id)]);
    if (!fresh) throw Errors.fileNotFound();
    const store = this.files;
    // On the filesystem, assembling (a flush to disk) and the rest of the hashing run side by side: one waits
    // on the disk, the other on the CPU.
    const [, hashed] = await Promise.all([
      store.complete(file, pieces, fresh.storeUpload),
      hasUploadHashing(store) ? store.digest(t.id, f.uid, file.size) : null,
    ]);
    // A store that hashed the file gives its CRC-32; otherwise the pieces' are combined. Pieces that do not tile
    // the file (a chunk sent again with another size; ranges recorded before pieces were): it is read.
    const crc32 =
      hashed?.crc32 ?? combinedCrc32(pieces, file.size) ?? (await readDigests(store, t.id, f.uid, file.size)).crc32;
    const sha256 = hashed?.sha256 ?? null;
    // The File may have been deleted, or its Transfer closed, while its bytes were read.
    const done = await this.uow.run(async (tx) => {
      if (!(await tx.transfers.completeFile(f.id, crc32, sha256))) {
        if (!(await tx.transfers.findFile(f.id))) throw Errors.fileNotFound();
        throw Errors.cannotAlterClosedTransfer();
      }
      await tx.audit.record({
        transferId: t.id,
        date: this.clock(),
        event: 'file_uploaded',
        author: auditAuthor(actor),
        target: fileTarget(f),
      });
      return (await tx.transfers.findFile(f.id))!;
    });
    if (sha256 === null) this.digestLater();
    return done;
  }

  /** The first bytes of a Transfer: status uploading, logged once, the guest's creator told. */
  private async noteUploadStarted(actor: Actor, t: Transfer): Promise<void> {
    // Loaded with the request: past the first chunk this saves a unit of work per chunk.
    if (t.status === 'uploading') return;
    await this.uow.run(async (tx) => {
      if (!(await tx.transfers.markUploading(t.id))) return;
      await tx.audit.record({
        transferId: t.id,
        date: this.clock(),
        event: 'upload_started',
        author: auditAuthor(actor),
        target: transferTarget(t),
      });
      if (t.guestId !== null) await this.guests.uploadStarted(tx, t.guestId, { ...t, status: 'uploading' });
    });
  }

  /**
   * Records a written range. When the File was deleted or its Transfer closed while the bytes were on their
   * way, nothing is recorded and the data just written is removed again.
   */
  private async record(
    t: Transfer,
    f: FileRecord,
    start: number,
    end: number,
    piece: StoredPiece | undefined,
  ): Promise<FileRecord> {
    // A unit of work: the read-merge-write of the ranges must not interleave with another chunk's (PostgreSQL holds the row).
    const after = await this.uow.run((tx) => tx.transfers.recordRange(f.id, start, end, piece));
    if (after) {
      const prefix = after.ranges[0]?.[0] === 0 ? after.ranges[0][1] : 0;
      if (prefix > 0 && hasUploadHashing(this.files)) this.files.digestAhead(t.id, f.uid, storedPrefix(t, f, prefix));
      return after;
    }
    // Completed while this chunk was on its way: its bytes were dropped (all on recorded ranges), the file stands.
    const now = await this.repos.transfers.findFile(f.id);
    if (now?.complete) throw Errors.cannotAddDataToCompleteTransfer();
    await dropFileData(this.repos, this.files, t.id, f.id, f.uid);
    if (!now) throw Errors.fileNotFound();
    throw Errors.cannotAlterClosedTransfer();
  }

  private assertWritable(t: Transfer, f: FileRecord): void {
    if (t.status === 'closed') throw Errors.cannotAlterClosedTransfer();
    if (t.status === 'available' || f.complete) throw Errors.cannotAddDataToCompleteTransfer();
    if (t.expires <= this.clock()) throw Errors.transferExpired();
  }
}
