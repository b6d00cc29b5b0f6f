import { Errors, retryAfter } from './errors';

/** Seconds a client refused for holding too many uploads is asked to wait: one chunk's time on a fair link. */
export const UPLOAD_SLOT_RETRY_S = 1;

/**
 * Counts the uploads each principal has in progress, so that one greedy client cannot take every socket,
 * file descriptor and disk write of the server. Lives in memory: a restart ends every upload anyway.
 */
export class UploadSlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly limit: () => number) {}

  /**
   * Takes a slot for `who` or throws 429 rate_limit_exceeded. The returned release may be called any number
   * of times; only the first gives the slot back, so a request that both fails and disconnects frees one.
   */
  acquire(who: string): () => void {
    const n = this.held.get(who) ?? 0;
    if (n >= this.limit()) throw Errors.rateLimitExceeded(retryAfter(UPLOAD_SLOT_RETRY_S));
    this.held.set(who, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(who) ?? 1) - 1;
      if (left > 0) this.held.set(who, left);
      else this.held.delete(who);
    };
  }

  /** Uploads `who` has in progress (0 when none). */
  inUse(who: string): number {
    return this.held.get(who) ?? 0;
  }

  /** Uploads in progress across all principals. */
  total(): number {
    let sum = 0;
    for (const n of this.held.values()) sum += n;
    return sum;
  }
}
