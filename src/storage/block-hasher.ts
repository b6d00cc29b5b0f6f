import crypto from 'node:crypto';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';

const crc32 = (zlib as unknown as { crc32(data: Uint8Array, value?: number): number }).crc32;
const MiB = 1024 * 1024;
/** Blocks on their way to the hashing thread at once, for all files together: memory stays at this many MiB. */
const POOL = 8;

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
  close(): Promise<void>;
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

  async close(): Promise<void> {}

  private stateOf(id: number) {
    let s = this.states.get(id);
    if (!s) this.states.set(id, (s = { hash: crypto.createHash('sha256'), crc: 0 }));
    return s;
  }
}

// Plain JavaScript run by the hashing thread; it needs only built-in modules, so it also runs inside the binary.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
const zlib = require('node:zlib');
const states = new Map();
const stateOf = (id) => {
  let s = states.get(id);
  if (!s) states.set(id, (s = { hash: crypto.createHash('sha256'), crc: 0 }));
  return s;
};
parentPort.on('message', (m) => {
  if (m.op === 'update') {
    const s = stateOf(m.id);
    const block = new Uint8Array(m.buf, 0, m.length);
    s.hash.update(block);
    s.crc = zlib.crc32(block, s.crc);
    parentPort.postMessage({ op: 'free', buf: m.buf }, [m.buf]);
  } else if (m.op === 'digest') {
    const s = stateOf(m.id);
    states.delete(m.id);
    parentPort.postMessage({ op: 'digest', req: m.req, crc32: s.crc >>> 0, sha256: s.hash.digest('hex') });
  } else if (m.op === 'forget') {
    states.delete(m.id);
  }
});
`;

/**
 * Hashes on a worker thread. SHA-256 and CRC-32 cost about as much CPU as receiving and writing the upload
 * itself; on the event loop they halved upload speed, on their own thread they use a core the server leaves
 * idle. Blocks are moved, not copied, both ways; at most POOL are out at once.
 */
export class WorkerHasher implements BlockHasher {
  private readonly worker: Worker;
  private readonly free: Buffer[] = [];
  private readonly waiting: ((b: Buffer) => void)[] = [];
  private readonly digests = new Map<number, { resolve: (d: Digest) => void; reject: (e: Error) => void }>();
  private nextReq = 1;
  private dead: Error | null = null;

  constructor() {
    for (let i = 0; i < POOL; i++) this.free.push(Buffer.from(new ArrayBuffer(MiB)));
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    this.worker.unref();
    this.worker.on('message', (m: { op: string; buf?: ArrayBuffer; req?: number } & Partial<Digest>) => {
      if (m.op === 'free') this.release(Buffer.from(m.buf!));
      else if (m.op === 'digest') {
        const d = this.digests.get(m.req!);
        this.digests.delete(m.req!);
        d?.resolve({ crc32: m.crc32!, sha256: m.sha256! });
      }
    });
    const fail = (e: Error) => {
      this.dead ??= e;
      for (const d of this.digests.values()) d.reject(this.dead);
      this.digests.clear();
      for (const w of this.waiting.splice(0)) w(Buffer.allocUnsafeSlow(MiB));
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('hashing thread stopped')));
  }

  buffer(): Promise<Buffer> {
    if (this.dead) return Promise.reject(this.dead);
    const b = this.free.pop();
    if (b) return Promise.resolve(b);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  update(id: number, block: Buffer, length: number): void {
    if (this.dead) return;
    const buf = block.buffer as ArrayBuffer;
    this.worker.postMessage({ op: 'update', id, buf, length }, [buf]);
  }

  release(block: Buffer): void {
    const next = this.waiting.shift();
    if (next) next(block);
    else this.free.push(block);
  }

  digest(id: number): Promise<Digest> {
    if (this.dead) return Promise.reject(this.dead);
    const req = this.nextReq++;
    return new Promise((resolve, reject) => {
      this.digests.set(req, { resolve, reject });
      this.worker.postMessage({ op: 'digest', id, req });
    });
  }

  forget(id: number): void {
    if (!this.dead) this.worker.postMessage({ op: 'forget', id });
  }

  async close(): Promise<void> {
    this.dead ??= new Error('closed');
    await this.worker.terminate();
  }
}

/** A worker thread when one can be started, else the calling thread. */
export function startHasher(): BlockHasher {
  try {
    return new WorkerHasher();
  } catch {
    return new InlineHasher();
  }
}
