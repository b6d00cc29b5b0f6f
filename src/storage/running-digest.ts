import { FileHasher, InlineHasher, type Digest } from './file-hasher';
import type { DigestStream } from '../domain/ports';

/** Uploads whose hashing state is kept at once; beyond it the oldest is dropped (and hashed anew at completion). */
const MAX_STATES = 1000;

interface State {
  /** The hasher's stream for this pass; a new one after a reset. */
  id: number;
  /** Bytes [0, target) are handed to the hasher (some may not be read yet). */
  target: number;
  /** A write landed in the part handed over: this pass is worthless, completion hashes from byte 0. */
  stale: boolean;
}

/**
 * CRC-32 and SHA-256 of uploads, computed while they arrive: as the received prefix [0, n) of a file grows,
 * its bytes are read back (from the page cache) and hashed in the background, so completing a file only
 * hashes what is left — seconds instead of minutes for a file of many GB. The state lives in memory only:
 * after a restart, or for a file no longer tracked, the digest starts over from byte 0.
 */
export class RunningDigests {
  private readonly states = new Map<string, State>();
  private nextId = 1;

  /** `hasher`: where files are read and hashed (the server passes its hashing threads). */
  constructor(
    private readonly pathOf: (key: string) => string,
    private readonly hasher: FileHasher = new InlineHasher(),
  ) {}

  /** A write is about to land at `offset`: if that part may already be hashed, the pass is no longer valid. */
  written(key: string, offset: number): void {
    const s = this.states.get(key);
    if (s && offset < s.target) s.stale = true;
  }

  /** Bytes [0, upTo) of the file are received: hash them in the background. */
  advance(key: string, upTo: number): void {
    const s = this.stateOf(key);
    // After a rewrite, a new pass from byte 0 now might read bytes still being rewritten: completion does it.
    if (s.stale || upTo <= s.target) return;
    s.target = upTo;
    this.hasher.advance(s.id, this.pathOf(key), upTo);
  }

  /** The digest of the first `size` bytes, finishing what the background work has not done yet. */
  async finish(key: string, size: number): Promise<Digest> {
    const s = this.stateOf(key);
    this.states.delete(key);
    if (!s.stale && s.target <= size) {
      if (size > s.target) this.hasher.advance(s.id, this.pathOf(key), size);
      const d = await this.hasher.digest(s.id).catch(() => null);
      if (d) return d;
    } else {
      this.hasher.forget(s.id);
    }
    // Rewritten, or the background pass failed (or the hashing threads are gone): one plain pass on this
    // thread, whose error reaches the caller.
    const inline = new InlineHasher();
    inline.advance(0, this.pathOf(key), size);
    return inline.digest(0);
  }

  /**
   * A digest of the file for one reader, with a hash stream of its own: a download's check never shares the
   * upload's state, nor another download's (a pass begun by an earlier reader hashed the bytes as they were
   * then, not as they are now).
   */
  stream(key: string): DigestStream {
    const id = this.nextId++;
    const file = this.pathOf(key);
    let target = 0;
    return {
      ahead: (upTo) => {
        if (upTo <= target) return;
        target = upTo;
        this.hasher.advance(id, file, upTo);
      },
      digest: async (size) => {
        if (size > target) this.hasher.advance(id, file, size);
        try {
          return await this.hasher.digest(id);
        } catch (e) {
          // A file gone is the caller's to know; the hashing threads gone, one plain pass here.
          if ((e as { code?: unknown }).code === 'ENOENT') throw e;
          const inline = new InlineHasher();
          inline.advance(0, file, size);
          return inline.digest(0);
        }
      },
      forget: () => this.hasher.forget(id),
    };
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
      s = { id: this.nextId++, target: 0, stale: false };
      this.states.set(key, s);
    }
    return s;
  }
}
