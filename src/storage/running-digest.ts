import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import zlib from 'node:zlib';

const crc32 = (zlib as unknown as { crc32(data: Buffer, value?: number): number }).crc32;
const MiB = 1024 * 1024;
/** Uploads whose hashing state is kept at once; beyond it the oldest is dropped (and hashed anew at completion). */
const MAX_STATES = 1000;

interface State {
  hash: crypto.Hash;
  crc: number;
  /** Bytes [0, pos) are hashed. */
  pos: number;
  /** How far the loop may read: the received prefix, or the whole file at completion. */
  target: number;
  /** A write landed in the part already read: start again from 0. */
  stale: boolean;
  /** Furthest byte read or being read. */
  readEnd: number;
  loop: Promise<void> | null;
  /** The background pass failed; no more attempts until finish(). */
  broken: boolean;
}

/**
 * CRC-32 and SHA-256 of uploads, computed while they arrive: as the received prefix [0, n) of a file grows,
 * its bytes are read back (from the page cache, 1 MiB at a time) and hashed in the background, so completing
 * a file only hashes what is left — seconds instead of minutes for a file of many GB. The state lives in
 * memory only: after a restart, or for a file no longer tracked, the digest starts over from byte 0.
 */
export class RunningDigests {
  private readonly states = new Map<string, State>();

  constructor(private readonly pathOf: (key: string) => string) {}

  /** A write is about to land at `offset`: if that part was already hashed, the state is no longer valid. */
  written(key: string, offset: number): void {
    const s = this.states.get(key);
    if (s && offset < s.readEnd) s.stale = true;
  }

  /** Bytes [0, upTo) of the file are received: hash them in the background. */
  advance(key: string, upTo: number): void {
    const s = this.stateOf(key);
    if (upTo <= s.target) return;
    s.target = upTo;
    this.run(key, s);
  }

  /** The digest of the first `size` bytes, finishing what the background work has not done yet. */
  async finish(key: string, size: number): Promise<{ crc32: number; sha256: string }> {
    const s = this.stateOf(key);
    s.target = size;
    s.broken = false;
    this.run(key, s);
    while (s.loop) await s.loop;
    if (s.broken || s.stale) {
      // The background pass failed or was overtaken: one plain pass, whose error reaches the caller.
      this.reset(s);
      await this.hashUpTo(key, s);
    }
    this.states.delete(key);
    return { crc32: s.crc >>> 0, sha256: s.hash.digest('hex') };
  }

  forget(key: string): void {
    this.states.delete(key);
  }

  forgetTransfer(transferId: number): void {
    for (const key of [...this.states.keys()]) if (key.startsWith(`${transferId}/`)) this.states.delete(key);
  }

  private stateOf(key: string): State {
    let s = this.states.get(key);
    if (!s) {
      if (this.states.size >= MAX_STATES) this.states.delete(this.states.keys().next().value!);
      s = { hash: crypto.createHash('sha256'), crc: 0, pos: 0, target: 0, stale: false, readEnd: 0, loop: null, broken: false };
      this.states.set(key, s);
    }
    return s;
  }

  private run(key: string, s: State): void {
    if (s.loop || s.broken) return;
    if (s.stale) this.reset(s);
    if (s.pos >= s.target) return;
    s.loop = this.hashUpTo(key, s)
      .catch(() => {
        s.broken = true; // unreadable for now (deleted, racing a close): finish() tries once more
      })
      .finally(() => {
        s.loop = null;
        if (this.states.get(key) === s && (s.stale || s.pos < s.target)) this.run(key, s);
      });
  }

  private async hashUpTo(key: string, s: State): Promise<void> {
    const h = await fsp.open(this.pathOf(key), 'r');
    try {
      const buf = Buffer.allocUnsafe(MiB);
      while (s.pos < s.target) {
        if (s.stale) this.reset(s);
        const want = Math.min(MiB, s.target - s.pos);
        s.readEnd = Math.max(s.readEnd, s.pos + want);
        const { bytesRead } = await h.read(buf, 0, want, s.pos);
        if (bytesRead === 0) throw new Error('file shorter than its received bytes');
        if (s.stale) continue; // overwritten while we read: this block may be neither old nor new
        const block = buf.subarray(0, bytesRead);
        s.hash.update(block);
        s.crc = crc32(block, s.crc);
        s.pos += bytesRead;
      }
    } finally {
      await h.close();
    }
  }

  private reset(s: State): void {
    s.hash = crypto.createHash('sha256');
    s.crc = 0;
    s.pos = 0;
    s.readEnd = 0;
    s.stale = false;
  }
}
