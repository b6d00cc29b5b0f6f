import fsp from 'node:fs/promises';
import { BlockHasher, InlineHasher } from './block-hasher';

const MiB = 1024 * 1024;
/** Uploads whose hashing state is kept at once; beyond it the oldest is dropped (and hashed anew at completion). */
const MAX_STATES = 1000;

interface State {
  /** The hasher's stream for this pass; a new one after a reset. */
  id: number;
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
  private nextId = 1;

  /** `hasher`: where blocks are hashed (the server passes its hashing thread, which starts at first use). */
  constructor(
    private readonly pathOf: (key: string) => string,
    private readonly hasher: BlockHasher = new InlineHasher(),
  ) {}

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
    this.states.delete(key);
    if (!s.broken && !s.stale) {
      const d = await this.hasher.digest(s.id).catch(() => null);
      if (d) return d;
    }
    // The background pass failed or was overtaken (or the hashing thread is gone): one plain pass on this
    // thread, whose error reaches the caller.
    const inline = new InlineHasher();
    this.reset(s);
    await this.hashUpTo(key, s, inline);
    return inline.digest(s.id);
  }

  forget(key: string): void {
    const s = this.states.get(key);
    if (s) this.hasher.forget(s.id);
    this.states.delete(key);
  }

  forgetTransfer(transferId: number): void {
    for (const key of [...this.states.keys()]) if (key.startsWith(`${transferId}/`)) this.forget(key);
  }

  private stateOf(key: string): State {
    let s = this.states.get(key);
    if (!s) {
      if (this.states.size >= MAX_STATES) this.forget(this.states.keys().next().value!);
      s = { id: this.nextId++, pos: 0, target: 0, stale: false, readEnd: 0, loop: null, broken: false };
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

  private async hashUpTo(key: string, s: State, hasher: BlockHasher = this.hasher): Promise<void> {
    // Nothing to read (an empty file, whose file may not even be created yet): the digest is of no bytes.
    if (s.pos >= s.target) return;
    const h = await fsp.open(this.pathOf(key), 'r');
    try {
      while (s.pos < s.target) {
        if (s.stale) this.reset(s);
        const want = Math.min(MiB, s.target - s.pos);
        s.readEnd = Math.max(s.readEnd, s.pos + want);
        const buf = await hasher.buffer();
        let bytesRead: number;
        try {
          ({ bytesRead } = await h.read(buf, 0, want, s.pos));
        } catch (e) {
          hasher.release(buf);
          throw e;
        }
        if (bytesRead === 0 || s.stale) {
          hasher.release(buf);
          if (bytesRead === 0) throw new Error('file shorter than its received bytes');
          continue; // overwritten while we read: this block may be neither old nor new
        }
        hasher.update(s.id, buf, bytesRead);
        s.pos += bytesRead;
      }
    } finally {
      await h.close();
    }
  }

  private reset(s: State): void {
    this.hasher.forget(s.id);
    s.id = this.nextId++;
    s.pos = 0;
    s.readEnd = 0;
    s.stale = false;
  }
}
