import type { Readable } from 'node:stream';

/** A stored file read forwards from a start position, into the caller's buffer. */
export interface PositionalReader {
  /**
   * Reads up to `length` bytes at `position` into the start of `buf`; 0 at the end of the range opened. Reads
   * go forwards (each at the position the previous one ended); a store may reopen when one does not.
   */
  read(buf: Buffer, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

/** Which stored file: addressed by Transfer id and File uid, never by a user-given name. */
export interface StoredFile {
  transferId: number;
  uid: string;
  /** Bytes the stored file has once complete (of an encrypted file: its ciphertext's length). */
  size: number;
}

/** A chunk the store has made durable. */
export interface WrittenChunk {
  written: number;
  /**
   * CRC-32 of the bytes written, computed as they went through; null from a store with UploadHashing, which
   * takes the whole file's CRC-32 beside its SHA-256 off the event loop (taking it per chunk as well cost the
   * event loop a tenth of its time during uploads; docs/architecture.md).
   */
  crc32: number | null;
  /**
   * Where the store put them, for `complete` (a part number and ETag, a staged object's name; empty when the
   * bytes are simply at their offset). The domain records it with the chunk's range, in the same unit of work,
   * so any node can complete the file.
   */
  receipt: string;
}

/**
 * How a store treats a chunk's body beyond writing it (docs/architecture.md, Signed chunks while they stream).
 * `keep`: ranges of the stored file already recorded: their bytes are final, so a chunk's bytes falling there
 * are read and dropped, never written. `signed`: the body is inside a signature not yet known to be right:
 * `see` takes every piece, in order, before it goes anywhere; `verified` resolves once the last piece is seen
 * and the signature matched, and rejects (401) when it did not. A store whose write becomes visible or
 * replaces something only when the write is finished (an S3 part, a staged object) holds back the end of the
 * body until then; the filesystem writes only outside `keep`, where nothing recorded or readable lies.
 */
export interface ChunkGuard {
  keep: [number, number][];
  signed?: SignedBody;
}

export interface SignedBody {
  see(piece: Uint8Array): void;
  verified(): Promise<void>;
}

/** A recorded chunk: bytes [start, end) of the stored file, with its CRC-32 and receipt. */
export interface StoredPiece {
  start: number;
  end: number;
  crc32: number | null;
  receipt: string;
}

/**
 * Where file data lives. The domain and the HTTP layer see only this interface (tusd's habit: the small core
 * here, optional powers as the interfaces below); the composition root chooses the filesystem
 * (src/storage/fs-store.ts) or S3 (src/storage/s3-store.ts). A store keeps no upload state that another node
 * would need: what `complete` needs comes back from the database (pieces, upload id).
 */
export interface FileStore {
  /**
   * Stores a chunk at `offset` of the file from a stream or buffer. Resolves once the bytes are durable;
   * rejects with code EOVERFLOW_CHUNK when the body runs past `expected`, ECONNRESET when it is cut short,
   * ESHORT_BODY when a body the store sends on with `expected` as its length (S3) ends cleanly before it (nothing
   * of it is kept; the filesystem's store resolves with the shorter `written` instead), ENOSPC when the disk is full, FERRY_STORAGE_DOWN when the store cannot be reached. `upload`: the file's
   * upload id from MultipartUploads.beginUpload, or null. `exact`: the request announced the body's length
   * (Content-Length or X-Service-Chunk-Size) as `expected`, so a store may send it on as it arrives; otherwise
   * `expected` is only a bound and a shorter body is a whole chunk.
   */
  writeChunk(
    file: StoredFile,
    offset: number,
    data: Readable | Buffer,
    expected: number,
    upload: string | null,
    exact?: boolean,
    guard?: ChunkGuard,
  ): Promise<WrittenChunk>;
  /**
   * Every byte has arrived: assemble the file from the pieces recorded (covering [0, size), possibly
   * overlapping) and make it durable and readable. Creates an empty file when `size` is 0. Idempotent: a
   * completion run again after a crash finds the file done.
   */
  complete(file: StoredFile, pieces: StoredPiece[], upload: string | null): Promise<void>;
  /** Opens bytes [start, end] (inclusive) of a completed file for forward reads. */
  openRead(transferId: number, uid: string, start: number, end: number): Promise<PositionalReader>;
  /** Removes a file's data; nothing there is success. */
  deleteFile(transferId: number, uid: string): Promise<void>;
  deleteTransfer(transferId: number): Promise<void>;
  /** Every stored file as [transferId, uid] with its size (orphan scans); a file's staged pieces count to it. */
  list(): Promise<{ transferId: number; uid: string; size: number }[]>;
  /** Transfer ids that have anything stored, even an empty folder (a deletion cut short can leave one). */
  transferDirs(): Promise<number[]>;
  /** Resolves when the store can be written to now (readiness checks: cheap, touches no file's data). */
  check(): Promise<void>;
  /** Bytes stored in all. */
  usedBytes(): Promise<number>;
  /** Free and total bytes where the store writes (the filesystem's), or null when the store cannot tell. */
  space(): Promise<{ free: number; total: number } | null>;
  close(): Promise<void>;
}

/**
 * Optional power of stores whose chunks become parts of one upload object (S3 multipart): the upload is begun
 * once per file, under the file's row lock, and its id kept in the database, so every node writes into it.
 */
export interface MultipartUploads {
  /** Whether a file of `size` stored bytes, sent in chunks of `chunkSize`, needs an upload begun. */
  uploadNeeded(size: number, chunkSize: number): boolean;
  beginUpload(file: StoredFile, chunkSize: number): Promise<string>;
  /** Aborts an unfinished upload; one already gone (completed or aborted) is success. */
  abortUpload(transferId: number, uid: string, upload: string): Promise<void>;
  /** The largest file (stored bytes) the store can assemble from chunks of `chunkSize`. */
  maxFileSize(chunkSize: number): number;
  /**
   * Whether completing a file of `size` stored bytes with this upload may take longer than a client waits for
   * an answer: the domain then completes it in the background, as a claimed job any node can finish.
   */
  assemblyIsLong(size: number, upload: string | null): boolean;
}

/**
 * Optional power of stores that hash a file while it arrives (the filesystem: its received prefix is read
 * back from the page cache), so completion knows the SHA-256 at once. Stores without it have the SHA-256
 * computed after completion by reading the file back (src/domain/digests.ts).
 */
export interface UploadHashing {
  /** Bytes [0, upTo) of the file are received: hashing them may start in the background. */
  digestAhead(transferId: number, uid: string, upTo: number): void;
  /** CRC-32 and SHA-256 of the stored file's `size` bytes. */
  digest(transferId: number, uid: string, size: number): Promise<{ crc32: number; sha256: string }>;
  /**
   * A digest of the stored file for one reader (a download checking what it sends), apart from the upload's:
   * `ahead(upTo)` lets bytes [0, upTo) be hashed in the background, `digest(size)` answers for the first
   * `size`, `forget()` drops it unfinished.
   */
  readDigest(transferId: number, uid: string): DigestStream;
}

export interface DigestStream {
  ahead(upTo: number): void;
  digest(size: number): Promise<{ crc32: number; sha256: string }>;
  forget(): void;
}

export function hasMultipartUploads(s: FileStore): s is FileStore & MultipartUploads {
  return typeof (s as Partial<MultipartUploads>).beginUpload === 'function';
}

export function hasUploadHashing(s: FileStore): s is FileStore & UploadHashing {
  return typeof (s as Partial<UploadHashing>).digest === 'function';
}
