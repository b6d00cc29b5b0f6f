import type { Readable } from 'node:stream';

/** A stored file opened for reads at any position, into the caller's buffer. */
export interface PositionalReader {
  /** Reads up to `length` bytes at `position` into the start of `buf`; 0 at the end of the file. */
  read(buf: Buffer, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Where file data lives. The domain and the HTTP layer see only this interface (tusd's habit); the filesystem
 * implementation (src/storage/fs-store.ts) is chosen by the composition root. Files are addressed by Transfer
 * id and File uid — never by a user-given name.
 */
export interface FileStore {
  /**
   * Writes a chunk at offset from a stream or buffer into the upload's file, creating it at its full `size`
   * on first use. Resolves with the bytes written once they are in the file; rejects with code
   * EOVERFLOW_CHUNK when the body runs past `expected`, ECONNRESET when it is cut short, ENOSPC when the disk
   * is full.
   */
  writeAt(transferId: number, uid: string, size: number, offset: number, data: Readable | Buffer, expected: number): Promise<number>;
  /**
   * The upload of a file is over: its data is flushed to stable storage and its open descriptor closed.
   * Creates an empty file of `size` bytes when nothing was ever written (a 0-byte File).
   */
  finish(transferId: number, uid: string, size: number): Promise<void>;
  /** Opens the file for reads into the caller's buffers (downloads reuse theirs: no garbage per MiB). */
  openRead(transferId: number, uid: string): Promise<PositionalReader>;
  /**
   * Bytes [0, upTo) of the file are received: the store may start computing the digest of that prefix in the
   * background, so that digest() at completion has little left to read.
   */
  digestAhead(transferId: number, uid: string, upTo: number): void;
  /** CRC-32 and SHA-256 of the stored file's `size` bytes (1 MiB reads). */
  digest(transferId: number, uid: string, size: number): Promise<{ crc32: number; sha256: string }>;
  deleteFile(transferId: number, uid: string): Promise<void>;
  deleteTransfer(transferId: number): Promise<void>;
  /** Every stored file as [transferId, uid] with its size (orphan scans). */
  list(): Promise<{ transferId: number; uid: string; size: number }[]>;
  /** Transfer ids that have a directory, empty or not (a deletion cut short can leave one empty). */
  transferDirs(): Promise<number[]>;
  /** Resolves when the store can be written to now (readiness checks: cheap, touches no file's data). */
  check(): Promise<void>;
  /** Bytes stored in all. */
  usedBytes(): Promise<number>;
  /** Free and total bytes where the store writes (the filesystem's), or null when the store cannot tell. */
  space(): Promise<{ free: number; total: number } | null>;
  close(): Promise<void>;
}
