import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { HashThread } from '../util/hash-thread';

const crc32 = (zlib as unknown as { crc32(data: Uint8Array, value?: number): number }).crc32;
const MiB = 1024 * 1024;
/** Blocks on their way to the hashing thread at once, for all files together: memory stays at this many MiB (4 keep it busy). */
const POOL = 4;

export interface Digest {
  crc32: number;
  sha256: string;
}

/**
 * CRC-32 and SHA-256 of byte streams, each identified by a number. Blocks come from `buffer()` (1 MiB, reused)
 * and go back through `update()`; `digest()` answers once every block given before it has been hashed.
 */
export interface BlockHasher {
  buffer(): Promise<Buffer>;
  /** Hands a block over (its first `length` bytes count); the buffer must not be touched afterwards. */
  update(id: number, block: Buffer, length: number): void;
  /** Gives a buffer back unused. */
  release(block: Buffer): void;
  digest(id: number): Promise<Digest>;
  forget(id: number): void;
}

/** Hashes on the calling thread: for tests and for when no worker thread can be started. */
export class InlineHasher implements BlockHasher {
  private readonly states = new Map<number, { hash: crypto.Hash; crc: number }>();

  buffer(): Promise<Buffer> {
    return Promise.resolve(Buffer.allocUnsafeSlow(MiB));
  }

  update(id: number, block: Buffer, length: number): void {
    const s = this.stateOf(id);
    const data = block.subarray(0, length);
    s.hash.update(data);
    s.crc = crc32(data, s.crc);
  }

  release(): void {}

  digest(id: number): Promise<Digest> {
    const s = this.stateOf(id);
    this.states.delete(id);
    return Promise.resolve({ crc32: s.crc >>> 0, sha256: s.hash.digest('hex') });
  }

  forget(id: number): void {
    this.states.delete(id);
  }

  private stateOf(id: number) {
    let s = this.states.get(id);
    if (!s) this.states.set(id, (s = { hash: crypto.createHash('sha256'), crc: 0 }));
    return s;
  }
}

/**
 * Hashes on the server's hashing thread: blocks are moved there and back, not copied; at most POOL are out at
 * once. When the thread is gone, digest() rejects and the caller hashes anew on its own thread.
 */
export class WorkerHasher implements BlockHasher {
  private readonly free: Buffer[] = [];
  private readonly waiting: ((b: Buffer) => void)[] = [];

  /** Streams whose hash state lives in the thread: it must not be stopped while there are any. */
  private readonly live = new Set<number>();

  constructor(private readonly thread: HashThread) {
    for (let i = 0; i < POOL; i++) this.free.push(Buffer.from(new ArrayBuffer(MiB)));
    thread.holdsState = () => this.live.size > 0;
    thread.onFree = (buf) => this.release(Buffer.from(buf));
    // Nothing more will come back: whoever waits for a block gets a fresh one (its digest() then rejects).
    thread.onFail = () => {
      for (const w of this.waiting.splice(0)) w(Buffer.allocUnsafeSlow(MiB));
    };
  }

  buffer(): Promise<Buffer> {
    if (this.thread.failed) return Promise.resolve(Buffer.allocUnsafeSlow(MiB));
    const b = this.free.pop();
    if (b) return Promise.resolve(b);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  update(id: number, block: Buffer, length: number): void {
    const buf = block.buffer as ArrayBuffer;
    this.live.add(id);
    this.thread.post({ op: 'update', id, buf, length }, [buf]);
  }

  release(block: Buffer): void {
    const next = this.waiting.shift();
    if (next) next(block);
    else if (this.free.length < POOL) this.free.push(block);
  }

  digest(id: number): Promise<Digest> {
    if (!this.live.has(id)) return Promise.reject(new Error('no hash state on the thread')); // hashed here instead
    return this.thread.call<Digest>({ op: 'digest', id }).finally(() => this.live.delete(id));
  }

  forget(id: number): void {
    if (this.live.delete(id)) this.thread.post({ op: 'forget', id });
  }
}
