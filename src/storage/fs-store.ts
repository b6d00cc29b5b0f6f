import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FileStore } from './file-store';
import type { PositionalReader, StoredFile, StoredPiece, WrittenChunk } from '../domain/ports';
import { AbortedError, writeAll, writeStreamAt } from './positional-writer';
import { RunningDigests } from './running-digest';
import { FileHasher, InlineHasher } from './file-hasher';

const UID = /^[0-9a-f]{32}$/;

/** Where a file's bytes live under the store's root: <root>/<transfer id>/<uid> (also read by `ferry backup`). */
export function storedFilePath(root: string, transferId: number, uid: string): string {
  if (!Number.isSafeInteger(transferId) || transferId < 1 || !UID.test(uid)) throw new Error('invalid file address');
  return path.join(root, String(transferId), uid);
}
/** An upload's descriptor stays open this long after its last chunk, for the next one. */
const IDLE_MS = 10_000;
/** Idle descriptors kept at most; beyond it the longest-idle ones are closed (many uploads at once). */
const MAX_IDLE = 128;
/**
 * Written bytes of a file after which they are flushed to disk in the background, the upload carrying on. The
 * kernel starts writing dirty pages back on its own only past a tenth of RAM, so without this the whole file
 * was still to be written when its upload completed: 2 GiB took seconds of flushing at completion.
 */
const FLUSH_EVERY = 64 * 1024 * 1024;

interface OpenFile {
  key: string;
  handle: Promise<fsp.FileHandle>;
  users: number;
  timer: NodeJS.Timeout | null;
  /** Evicted: close when the last user releases it. */
  closing: boolean;
  /** Bytes written since the last background flush started. */
  unflushed: number;
  flushing: boolean;
}

/** A file opened for reads at any position into the caller's buffers. */
export async function openPositional(file: string): Promise<PositionalReader> {
  const h = await fsp.open(file, 'r');
  return {
    read: async (buf, length, position) => (await h.read(buf, 0, length, position)).bytesRead,
    close: () => h.close(),
  };
}

async function closeHandle(entry: OpenFile): Promise<void> {
  const h = await entry.handle.catch(() => null);
  await h?.close().catch(() => {});
}

/**
 * data_dir/files/<transfer id>/<file uid>. Chunks go to their offset with positional writes into a file of the
 * final size, opened once per upload (a small cache of descriptors, closed when the file completes or after
 * idle), so chunks may arrive in any order and in parallel.
 */
export class FsFileStore implements FileStore {
  private readonly open = new Map<string, OpenFile>();
  /** A background flush that failed: reported by finish(), so a write error never passes unseen. */
  private readonly flushErrors = new Map<string, Error>();

  private readonly digests: RunningDigests;

  /** `hasher`: where uploads are hashed (the server passes its hashing thread). */
  constructor(
    private readonly root: string,
    hasher: FileHasher = new InlineHasher(),
  ) {
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    this.digests = new RunningDigests((key) => path.join(this.root, key), hasher);
  }

  pathOf(transferId: number, uid: string): string {
    return storedFilePath(this.root, transferId, uid);
  }

  async writeAt(transferId: number, uid: string, size: number, offset: number, data: Readable | Buffer, expected: number): Promise<number> {
    const entry = this.acquire(transferId, uid, size);
    this.digests.written(entry.key, offset);
    try {
      const handle = await entry.handle;
      let written: number;
      if (Buffer.isBuffer(data)) {
        await writeAll(handle, data, offset);
        written = data.length;
      } else {
        written = await writeStreamAt(handle, data, offset, expected);
      }
      this.flushSometimes(entry, written);
      return written;
    } finally {
      this.release(entry);
    }
  }

  /** The port's write: writeAt, with the CRC-32 of the bytes taken as they pass (no receipt: they are at their offset). */
  async writeChunk(file: StoredFile, offset: number, data: Readable | Buffer, expected: number): Promise<WrittenChunk> {
    if (Buffer.isBuffer(data)) {
      const written = await this.writeAt(file.transferId, file.uid, file.size, offset, data, expected);
      return { written, crc32: zlib.crc32(data), receipt: '' };
    }
    // Through a pass-through that takes the CRC-32 on the way; a client that goes away is passed on as an error.
    let crc = 0;
    let seen = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen <= expected) crc = zlib.crc32(chunk, crc);
        done(null, chunk);
      },
    });
    data.once('error', () => counted.destroy(new AbortedError()));
    data.once('close', () => {
      if (!data.readableEnded) counted.destroy(new AbortedError());
    });
    data.pipe(counted);
    const written = await this.writeAt(file.transferId, file.uid, file.size, offset, counted, expected);
    return { written, crc32: crc >>> 0, receipt: '' };
  }

  /** The pieces are already in place: completing is making them durable. */
  async complete(file: StoredFile, _pieces: StoredPiece[]): Promise<void> {
    await this.finish(file.transferId, file.uid, file.size);
  }

  async finish(transferId: number, uid: string, size: number): Promise<void> {
    const entry = this.acquire(transferId, uid, size);
    try {
      await (await entry.handle).datasync();
      const failed = this.flushErrors.get(entry.key);
      this.flushErrors.delete(entry.key);
      if (failed) throw failed;
    } finally {
      this.release(entry);
      await this.evict(entry.key);
    }
  }

  /** Reads anywhere in the file (the range is the caller's to keep to). */
  async openRead(transferId: number, uid: string): Promise<PositionalReader> {
    return openPositional(this.pathOf(transferId, uid));
  }

  digestAhead(transferId: number, uid: string, upTo: number): void {
    this.digests.advance(this.keyOf(transferId, uid), upTo);
  }

  digest(transferId: number, uid: string, size: number): Promise<{ crc32: number; sha256: string }> {
    return this.digests.finish(this.keyOf(transferId, uid), size);
  }

  async deleteFile(transferId: number, uid: string): Promise<void> {
    const file = this.pathOf(transferId, uid);
    await this.evict(`${transferId}/${uid}`);
    this.digests.forget(`${transferId}/${uid}`);
    this.flushErrors.delete(`${transferId}/${uid}`);
    await fsp.rm(file, { force: true });
    await fsp.rmdir(path.dirname(file)).catch(() => {}); // only when now empty
  }

  async deleteTransfer(transferId: number): Promise<void> {
    if (!Number.isSafeInteger(transferId) || transferId < 1) throw new Error('invalid transfer id');
    for (const key of [...this.open.keys()]) if (key.startsWith(`${transferId}/`)) await this.evict(key);
    this.digests.forgetTransfer(transferId);
    for (const key of [...this.flushErrors.keys()]) if (key.startsWith(`${transferId}/`)) this.flushErrors.delete(key);
    await fsp.rm(path.join(this.root, String(transferId)), { recursive: true, force: true });
  }

  async list(): Promise<{ transferId: number; uid: string; size: number }[]> {
    const out: { transferId: number; uid: string; size: number }[] = [];
    for (const dir of await fsp.readdir(this.root).catch(() => [] as string[])) {
      if (!/^\d+$/.test(dir)) continue;
      for (const name of await fsp.readdir(path.join(this.root, dir)).catch(() => [] as string[])) {
        const st = await fsp.stat(path.join(this.root, dir, name)).catch(() => null);
        if (st?.isFile()) out.push({ transferId: Number(dir), uid: name, size: st.size });
      }
    }
    return out;
  }

  async transferDirs(): Promise<number[]> {
    const names = await fsp.readdir(this.root).catch(() => [] as string[]);
    return names.filter((n) => /^\d+$/.test(n)).map(Number);
  }

  async check(): Promise<void> {
    // The folder itself, not a probe file: an unmounted volume or a removed or read-only folder fails here.
    const st = await fs.promises.stat(this.root);
    if (!st.isDirectory()) throw new Error(`${this.root} is not a directory`);
    await fs.promises.access(this.root, fs.constants.W_OK);
  }

  async usedBytes(): Promise<number> {
    return (await this.list()).reduce((n, f) => n + f.size, 0);
  }

  /** Closes every cached descriptor (shutdown, tests). */
  async close(): Promise<void> {
    for (const key of [...this.open.keys()]) await this.evict(key);
  }

  private keyOf(transferId: number, uid: string): string {
    this.pathOf(transferId, uid); // validates the address
    return `${transferId}/${uid}`;
  }

  private flushSometimes(entry: OpenFile, written: number): void {
    entry.unflushed += written;
    if (entry.unflushed < FLUSH_EVERY || entry.flushing || entry.closing) return;
    entry.unflushed = 0;
    entry.flushing = true;
    entry.users++; // the descriptor stays open until the flush is done
    entry.handle
      .then((h) => h.datasync())
      .catch((e: Error) => this.flushErrors.set(entry.key, e))
      .finally(() => {
        entry.flushing = false;
        this.release(entry);
      });
  }

  /** The upload's open descriptor: opened (and the file created at its full size) on first use. */
  private acquire(transferId: number, uid: string, size: number): OpenFile {
    const key = this.keyOf(transferId, uid);
    let entry = this.open.get(key);
    if (!entry) {
      const created: OpenFile = { key, handle: this.openForWriting(transferId, uid, size), users: 0, timer: null, closing: false, unflushed: 0, flushing: false };
      created.handle.catch(() => {
        if (this.open.get(key) === created) this.open.delete(key);
      });
      this.open.set(key, created);
      entry = created;
    }
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    entry.users++;
    return entry;
  }

  private release(entry: OpenFile): void {
    entry.users--;
    if (entry.users > 0) return;
    if (entry.closing) {
      void closeHandle(entry);
      return;
    }
    entry.timer = setTimeout(() => void this.evict(entry.key), IDLE_MS);
    entry.timer.unref();
    // Re-inserted so that the map's order is the order of last use; the oldest idle ones go first.
    this.open.delete(entry.key);
    this.open.set(entry.key, entry);
    if (this.open.size > MAX_IDLE) this.trimIdle();
  }

  private trimIdle(): void {
    let excess = this.open.size - MAX_IDLE;
    for (const [key, e] of this.open) {
      if (excess <= 0) break;
      if (e.users > 0) continue;
      void this.evict(key);
      excess--;
    }
  }

  /** Descriptors currently cached (in use or idle). */
  get cachedDescriptors(): number {
    return this.open.size;
  }

  /** Forgets a cached descriptor and closes it now, or when the last write still running on it ends. */
  private async evict(key: string): Promise<void> {
    const entry = this.open.get(key);
    if (!entry) return;
    this.open.delete(key);
    if (entry.timer) clearTimeout(entry.timer);
    entry.closing = true;
    if (entry.users === 0) await closeHandle(entry);
  }

  private async openForWriting(transferId: number, uid: string, size: number): Promise<fsp.FileHandle> {
    const file = this.pathOf(transferId, uid);
    await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const h = await fsp.open(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600);
    try {
      if ((await h.stat()).size !== size) await h.truncate(size);
    } catch (e) {
      await h.close();
      throw e;
    }
    return h;
  }
}
