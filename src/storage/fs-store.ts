import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import type { FileStore } from './file-store';

const crc32 = (zlib as unknown as { crc32(data: Buffer, value?: number): number }).crc32;
const MiB = 1024 * 1024;
const UID = /^[0-9a-f]{32}$/;

/**
 * data_dir/files/<transfer id>/<file uid>. Chunks go to their offset with positional writes into a file
 * opened once per upload (kept in a small cache of descriptors, closed after idle), so chunks may arrive in
 * any order and in parallel.
 */
export class FsFileStore implements FileStore {
  private readonly fds = new Map<string, { fd: Promise<fsp.FileHandle>; users: number; timer: NodeJS.Timeout | null }>();

  constructor(private readonly root: string) {
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  pathOf(transferId: number, uid: string): string {
    if (!Number.isSafeInteger(transferId) || transferId < 1 || !UID.test(uid)) throw new Error('invalid file address');
    return path.join(this.root, String(transferId), uid);
  }

  async prepare(transferId: number, uid: string, size: number): Promise<void> {
    const file = this.pathOf(transferId, uid);
    await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const h = await fsp.open(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600);
    try {
      const st = await h.stat();
      if (st.size !== size) await h.truncate(size);
    } finally {
      await h.close();
    }
  }

  async writeAt(transferId: number, uid: string, offset: number, data: Readable | Buffer, expected: number): Promise<number> {
    const handle = await this.acquire(transferId, uid);
    try {
      if (Buffer.isBuffer(data)) {
        await writeAll(handle, data, offset);
        return data.length;
      }
      return await writeStream(handle, data, offset, expected);
    } finally {
      this.release(transferId, uid);
    }
  }

  async sync(transferId: number, uid: string): Promise<void> {
    const h = await fsp.open(this.pathOf(transferId, uid), 'r+');
    try {
      await h.datasync();
    } finally {
      await h.close();
    }
  }

  read(transferId: number, uid: string, start: number, end: number): Readable {
    return fs.createReadStream(this.pathOf(transferId, uid), { start, end, highWaterMark: MiB });
  }

  async digest(transferId: number, uid: string): Promise<{ crc32: number; sha256: string }> {
    const hash = crypto.createHash('sha256');
    let crc = 0;
    for await (const chunk of fs.createReadStream(this.pathOf(transferId, uid), { highWaterMark: 4 * MiB })) {
      hash.update(chunk as Buffer);
      crc = crc32(chunk as Buffer, crc);
    }
    return { crc32: crc >>> 0, sha256: hash.digest('hex') };
  }

  async deleteFile(transferId: number, uid: string): Promise<void> {
    await fsp.rm(this.pathOf(transferId, uid), { force: true });
    await fsp.rmdir(path.join(this.root, String(transferId))).catch(() => {}); // only when now empty
  }

  async deleteTransfer(transferId: number): Promise<void> {
    if (!Number.isSafeInteger(transferId) || transferId < 1) throw new Error('invalid transfer id');
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

  async usedBytes(): Promise<number> {
    return (await this.list()).reduce((n, f) => n + f.size, 0);
  }

  private acquire(transferId: number, uid: string): Promise<fsp.FileHandle> {
    const key = `${transferId}/${uid}`;
    let entry = this.fds.get(key);
    if (!entry) {
      entry = { fd: fsp.open(this.pathOf(transferId, uid), 'r+'), users: 0, timer: null };
      this.fds.set(key, entry);
      entry.fd.catch(() => this.fds.delete(key));
    }
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    entry.users++;
    return entry.fd;
  }

  private release(transferId: number, uid: string): void {
    const key = `${transferId}/${uid}`;
    const entry = this.fds.get(key);
    if (!entry) return;
    entry.users--;
    if (entry.users > 0) return;
    entry.timer = setTimeout(() => {
      if (entry.users > 0) return;
      this.fds.delete(key);
      void entry.fd.then((h) => h.close()).catch(() => {});
    }, 10_000);
    entry.timer.unref();
  }

  /** Closes every cached descriptor (shutdown, tests). */
  async close(): Promise<void> {
    const all = [...this.fds.values()];
    this.fds.clear();
    for (const e of all) {
      if (e.timer) clearTimeout(e.timer);
      await e.fd.then((h) => h.close()).catch(() => {});
    }
  }
}

/**
 * Writes a stream at its offset with back-pressure. When a write fails (ENOSPC) or the body runs past
 * `expected`, the rest of the body is drained (up to `expected` more bytes) before rejecting, so the client
 * gets the error answer on an intact connection instead of a reset.
 */
function writeStream(h: fsp.FileHandle, data: Readable, offset: number, expected: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let pos = offset;
    let failed: Error | null = null;
    let drained = 0;
    let pending: Promise<void> = Promise.resolve();
    data.on('data', (chunk: Buffer) => {
      if (failed) {
        drained += chunk.length;
        if (drained > expected) data.destroy(failed);
        return;
      }
      if (pos - offset + chunk.length > expected) {
        failed = Object.assign(new Error('more data than announced'), { code: 'EOVERFLOW_CHUNK' });
        return;
      }
      data.pause();
      pending = writeAll(h, chunk, pos).then(
        () => {
          pos += chunk.length;
          data.resume();
        },
        (e: Error) => {
          failed = e;
          data.resume();
        },
      );
    });
    // 'end' may come while the last write is still running: settle after it.
    data.once('end', () => void pending.then(() => (failed ? reject(failed) : resolve(pos - offset))));
    data.once('error', (e) => reject(failed ?? e));
  });
}

async function writeAll(h: fsp.FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await h.write(buf, done, buf.length - done, position + done);
    done += bytesWritten;
  }
}
