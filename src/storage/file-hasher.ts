import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import zlib from 'node:zlib';
import type { HashThread } from '../util/hash-thread';

const crc32 = (zlib as unknown as { crc32(data: Uint8Array, value?: number): number }).crc32;
const MiB = 1024 * 1024;

export interface Digest {
  crc32: number;
  sha256: string;
}

/**
 * CRC-32 and SHA-256 of files' leading bytes, each hash stream identified by a number. `advance` asks for the
 * first `upTo` bytes of `file` to be hashed in the background (they must be on the file by then and not
 * change); `digest` answers once every byte asked for is hashed, or rejects when the file could not be read
 * or the hasher is gone.
 */
export interface FileHasher {
  advance(id: number, file: string, upTo: number): void;
  digest(id: number): Promise<Digest>;
  forget(id: number): void;
}

interface InlineState {
  file: string;
  pos: number;
  target: number;
  hash: crypto.Hash;
  crc: number;
  loop: Promise<void> | null;
  error: Error | null;
}

/** Reads and hashes on the calling thread (asynchronous reads): for tests and when no thread can be started. */
export class InlineHasher implements FileHasher {
  private readonly states = new Map<number, InlineState>();

  advance(id: number, file: string, upTo: number): void {
    let s = this.states.get(id);
    if (!s)
      this.states.set(
        id,
        (s = { file, pos: 0, target: 0, hash: crypto.createHash('sha256'), crc: 0, loop: null, error: null }),
      );
    s.target = Math.max(s.target, upTo);
    this.run(s);
  }

  async digest(id: number): Promise<Digest> {
    const s = this.states.get(id);
    if (!s) return { crc32: 0, sha256: crypto.createHash('sha256').digest('hex') };
    while (s.loop) await s.loop;
    this.states.delete(id);
    if (s.error) throw s.error;
    return { crc32: s.crc >>> 0, sha256: s.hash.digest('hex') };
  }

  forget(id: number): void {
    this.states.delete(id);
  }

  private run(s: InlineState): void {
    if (s.loop || s.error || s.pos >= s.target) return;
    s.loop = this.readUpTo(s)
      .catch((e: Error) => {
        s.error = e;
      })
      .finally(() => {
        s.loop = null;
        this.run(s); // advanced meanwhile
      });
  }

  private async readUpTo(s: InlineState): Promise<void> {
    const h = await fsp.open(s.file, 'r');
    const buf = Buffer.allocUnsafe(MiB);
    try {
      while (s.pos < s.target) {
        const { bytesRead } = await h.read(buf, 0, Math.min(MiB, s.target - s.pos), s.pos);
        if (bytesRead === 0) throw new Error('file shorter than its received bytes');
        const block = buf.subarray(0, bytesRead);
        s.hash.update(block);
        s.crc = crc32(block, s.crc);
        s.pos += bytesRead;
      }
    } finally {
      await h.close();
    }
  }
}

/**
 * Hashes on the server's hashing threads, which read the files themselves: the event loop only sends how far
 * each file may be read (a message per chunk), no data. When the threads are gone, digest() rejects and the
 * caller hashes anew on its own thread.
 */
export class WorkerHasher implements FileHasher {
  constructor(private readonly threads: HashThread) {}

  advance(id: number, file: string, upTo: number): void {
    this.threads.hash(id, file, upTo);
  }

  digest(id: number): Promise<Digest> {
    return this.threads.digest<Digest>(id);
  }

  forget(id: number): void {
    this.threads.forget(id);
  }
}
