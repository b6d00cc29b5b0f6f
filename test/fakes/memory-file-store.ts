import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import type {
  FileStore,
  PositionalReader,
  StoredFile,
  StoredPiece,
  UploadHashing,
  WrittenChunk,
} from '../../src/domain/ports';

/**
 * A file store in memory, with the filesystem's powers (bytes at their offset, hashed at completion): enough for
 * the domain's rules on fakes (test/fakes/domain.ts). Chunks come as Buffers; a stream is read whole first.
 */
export class MemoryFileStore implements FileStore, UploadHashing {
  readonly data = new Map<string, Buffer>();
  private key(transferId: number, uid: string) {
    return `${transferId}/${uid}`;
  }

  async writeChunk(file: StoredFile, offset: number, body: Readable | Buffer, expected: number): Promise<WrittenChunk> {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.concat(await (body as Readable).toArray());
    if (bytes.length > expected)
      throw Object.assign(new Error('chunk longer than announced'), { code: 'EOVERFLOW_CHUNK' });
    const k = this.key(file.transferId, file.uid);
    const cur = this.data.get(k) ?? Buffer.alloc(file.size);
    bytes.copy(cur, offset);
    this.data.set(k, cur);
    return { written: bytes.length, crc32: null, receipt: '' };
  }
  async complete(file: StoredFile, _pieces: StoredPiece[]): Promise<void> {
    const k = this.key(file.transferId, file.uid);
    if (!this.data.has(k)) this.data.set(k, Buffer.alloc(file.size));
  }
  async openRead(transferId: number, uid: string, start: number, end: number): Promise<PositionalReader> {
    const bytes = (this.data.get(this.key(transferId, uid)) ?? Buffer.alloc(0)).subarray(start, end + 1);
    return {
      read: async (buf, length, position) =>
        bytes.copy(buf, 0, position - start, Math.min(bytes.length, position - start + length)),
      close: async () => {},
    };
  }
  async deleteFile(transferId: number, uid: string) {
    this.data.delete(this.key(transferId, uid));
  }
  async deleteTransfer(transferId: number) {
    for (const k of [...this.data.keys()]) if (k.startsWith(`${transferId}/`)) this.data.delete(k);
  }
  async list() {
    return [...this.data].map(([k, b]) => ({
      transferId: Number(k.split('/')[0]),
      uid: k.split('/')[1],
      size: b.length,
    }));
  }
  async transferDirs() {
    return [...new Set([...this.data.keys()].map((k) => Number(k.split('/')[0])))];
  }
  async check() {}
  async usedBytes() {
    return [...this.data.values()].reduce((n, b) => n + b.length, 0);
  }
  async space() {
    return null;
  }
  async close() {}
  digestAhead() {}
  readDigest(transferId: number, uid: string) {
    return { ahead() {}, digest: (size: number) => this.digest(transferId, uid, size), forget() {} };
  }
  async digest(transferId: number, uid: string, size: number) {
    const bytes = (this.data.get(this.key(transferId, uid)) ?? Buffer.alloc(0)).subarray(0, size);
    return { crc32: zlib.crc32(bytes), sha256: crypto.createHash('sha256').update(bytes).digest('hex') };
  }
}
