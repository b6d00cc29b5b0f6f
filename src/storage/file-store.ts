import type { Readable } from 'node:stream';

/**
 * Where file data lives. The HTTP layer and the domain see only this interface (tusd's habit); the
 * filesystem implementation is chosen by the composition root. Files are addressed by Transfer id and File
 * uid — never by a user-given name.
 */
export interface FileStore {
  /** Creates the (empty, full-size) file for an upload if it does not exist yet. */
  prepare(transferId: number, uid: string, size: number): Promise<void>;
  /** Writes a chunk at offset from a stream or buffer; resolves with the bytes written once on disk. */
  writeAt(transferId: number, uid: string, offset: number, data: Readable | Buffer, expected: number): Promise<number>;
  /** Flushes a file's data to stable storage (before it is declared complete). */
  sync(transferId: number, uid: string): Promise<void>;
  /** Reads [start, end] (inclusive) with 1 MiB reads. */
  read(transferId: number, uid: string, start: number, end: number): Readable;
  /** CRC-32 and SHA-256 of the whole stored file, in one streaming pass. */
  digest(transferId: number, uid: string): Promise<{ crc32: number; sha256: string }>;
  deleteFile(transferId: number, uid: string): Promise<void>;
  deleteTransfer(transferId: number): Promise<void>;
  /** Every stored file as [transferId, uid] (orphan scans), and the folders found. */
  list(): Promise<{ transferId: number; uid: string; size: number }[]>;
  /** Bytes stored in all. */
  usedBytes(): Promise<number>;
}
