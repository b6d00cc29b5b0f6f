import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FileStore } from './file-store';
import type {
  ChunkGuard,
  DigestStream,
  PositionalReader,
  StoredFile,
  StoredPiece,
  WrittenChunk,
} from '../domain/ports';
import { gapsOf, writeAll, writeStreamAt } from './positional-writer';
import { RunningDigests } from './running-digest';
import { FileHasher, InlineHasher } from './file-hasher';
import { checkFileAddress, checkTransferId } from './file-address';
import { fromFileSystem } from './errors';

/** Where a file's bytes live under the store's root: <root>/<transfer id>/<uid> (also read by `ferry backup`). */
export function storedFilePath(root: string, transferId: number, uid: string): string {
  checkFileAddress(transferId, uid);
  return path.join(root, String(transferId), uid);
}
/** An upload's descriptor stays open this long after its last chunk, for the next one. */
const IDLE_MS = 10_000;
/** Idle descriptors kept at most; beyond it the longest-idle ones are closed (many uploads at once). */
const MAX_IDLE = 128;
/**
 * Upload files are opened O_DSYNC: each write returns once its bytes (and the size needed to read them back) are
 * on the disk, so a chunk is durable when its last write ends, and the disk works while the rest of the chunk
 * is still arriving. A flush after the chunk (fdatasync, even grouped across parallel chunks) left the bytes
 * idle in the page cache until the chunk's end and made every chunk wait for the whole of it: about 0.75x the
 * speed of not flushing, against 0.9x and better this way (docs/performance.md; docs/architecture.md).
 */
const DURABLE_WRITES = fs.constants.O_RDWR | fs.constants.O_DSYNC;

interface OpenFile {
  key: string;
  path: string;
  handle: Promise<fsp.FileHandle>;
  users: number;
  timer: NodeJS.Timeout | null;
  /** Evicted: close when the last user releases it. */
  closing: boolean;
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
 * idle), so chunks may arrive in any order and in parallel. A write resolves only once its bytes are on the
 * disk (O_DSYNC): its range is recorded and the chunk acknowledged after that, so a power cut loses no
 * acknowledged byte.
 */
export class FsFileStore implements FileStore {
  private readonly open = new Map<string, OpenFile>();

  private readonly digests: RunningDigests;

  /** `hasher`: where uploads are hashed (the server passes its hashing threads). */
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

  async writeAt(
    transferId: number,
    uid: string,
    size: number,
    offset: number,
    data: Readable | Buffer,
    expected: number,
    guard?: ChunkGuard,
  ): Promise<number> {
    const entry = this.acquire(transferId, uid, size);
    const gaps = guard ? gapsOf(guard.keep, offset, offset + expected) : [[offset, offset + expected]];
    // Bytes on recorded ranges are never written (guard.keep): only a write outside them may touch hashed bytes.
    if (gaps.length > 0) this.digests.written(entry.key, offset);
    // A signed body is hashed as it streams, and counts only once its signature is known right
    // (docs/architecture.md, Signed chunks while they stream).
    const signed = guard?.signed;
    try {
      const handle = await entry.handle;
      let written: number;
      if (Buffer.isBuffer(data)) {
        signed?.see(data);
        for (const [a, b] of gapsOf(guard?.keep ?? [], offset, offset + data.length))
          await writeAll(handle, data.subarray(a - offset, b - offset), a);
        written = data.length;
      } else {
        written = await writeStreamAt(handle, data, offset, expected, guard);
      }
      // The bytes went only where nothing recorded lies; they count once their signature is known right.
      await signed?.verified();
      return written;
    } catch (e) {
      throw fromFileSystem(e);
    } finally {
      this.release(entry);
    }
  }

  /**
   * The port's write: writeAt (no receipt: the bytes are at their offset). No CRC-32: the hashing threads take
   * the file's beside its SHA-256 (UploadHashing), off the event loop.
   */
  async writeChunk(
    file: StoredFile,
    offset: number,
    data: Readable | Buffer,
    expected: number,
    _upload?: string | null,
    _exact?: boolean,
    guard?: ChunkGuard,
  ): Promise<WrittenChunk> {
    const written = await this.writeAt(file.transferId, file.uid, file.size, offset, data, expected, guard);
    return { written, crc32: null, receipt: '' };
  }

  /** The pieces are already in place: completing is making them durable. */
  async complete(file: StoredFile, _pieces: StoredPiece[]): Promise<void> {
    await this.finish(file.transferId, file.uid, file.size);
  }

  async finish(transferId: number, uid: string, size: number): Promise<void> {
    // Every write was on the disk before it resolved, and a new file's name too: what is left is creating a
    // file that got no write (0 bytes) and closing the descriptor.
    const entry = this.acquire(transferId, uid, size);
    try {
      await entry.handle;
    } catch (e) {
      throw fromFileSystem(e);
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

  readDigest(transferId: number, uid: string): DigestStream {
    return this.digests.stream(this.keyOf(transferId, uid));
  }

  async deleteFile(transferId: number, uid: string): Promise<void> {
    const file = this.pathOf(transferId, uid);
    await this.evict(`${transferId}/${uid}`);
    this.digests.forget(`${transferId}/${uid}`);
    await fsp.rm(file, { force: true });
    await fsp.rmdir(path.dirname(file)).catch(() => {}); // only when now empty
  }

  async deleteTransfer(transferId: number): Promise<void> {
    checkTransferId(transferId);
    for (const key of [...this.open.keys()]) if (key.startsWith(`${transferId}/`)) await this.evict(key);
    this.digests.forgetTransfer(transferId);
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

  /** statfs of the store's folder: what an unprivileged writer may still use (bavail), and the volume's size. */
  async space(): Promise<{ free: number; total: number } | null> {
    const st = await fs.promises.statfs(this.root);
    return { free: st.bavail * st.bsize, total: st.blocks * st.bsize };
  }

  /** Closes every cached descriptor (shutdown, tests). */
  async close(): Promise<void> {
    for (const key of [...this.open.keys()]) await this.evict(key);
  }

  private keyOf(transferId: number, uid: string): string {
    this.pathOf(transferId, uid); // validates the address
    return `${transferId}/${uid}`;
  }

  /** The upload's open descriptor: opened (and the file created at its full size) on first use. */
  private acquire(transferId: number, uid: string, size: number): OpenFile {
    const key = this.keyOf(transferId, uid);
    let entry = this.open.get(key);
    if (!entry) {
      const handle = this.openForWriting(transferId, uid, size);
      const created: OpenFile = {
        key,
        path: this.pathOf(transferId, uid),
        handle,
        users: 0,
        timer: null,
        closing: false,
      };
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
    const dir = path.dirname(file);
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    let created = true;
    const h = await fsp
      .open(file, DURABLE_WRITES | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600)
      .catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
        created = false;
        return fsp.open(file, DURABLE_WRITES);
      });
    try {
      // The size set here reaches the disk with the first write (O_DSYNC carries what reading back needs).
      if ((await h.stat()).size !== size) await h.truncate(size);
      // O_DSYNC makes a file's data durable, not its name: the names of a new file and of its transfer's
      // folder are flushed once, before the first chunk is acknowledged.
      if (created) {
        await syncDirectory(dir);
        await syncDirectory(this.root);
      }
    } catch (e) {
      await h.close();
      throw e;
    }
    return h;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const d = await fsp.open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
