import type { Db } from './connection';
import type { UsedSignatures } from '../auth/remote';

/**
 * Expired signatures are swept at most this often. The sweep scans the table (no index on expires), which with
 * many signed chunks in flight takes milliseconds under the write lock; once a minute that does not matter,
 * once per signed request it would.
 */
export const SIGNATURE_SWEEP_S = 60;

/** Signatures of signed POST/PUT/DELETE requests, kept until their timestamp window has passed (replay refusal). */
export class SignaturesRepo implements UsedSignatures {
  private lastSweep = -Infinity;

  constructor(private readonly db: Db) {}

  /** Remembers a signature until it expires; false when it was already used (a replay). */
  use(signature: string, expires: number, now: number): boolean {
    return this.db.transaction(() => {
      if (now - this.lastSweep >= SIGNATURE_SWEEP_S) {
        this.db.prepare('DELETE FROM used_signatures WHERE expires < ?').run(now);
        this.lastSweep = now;
      }
      // A row left over from before its expiry was swept is not a replay: the timestamp window decides that.
      const taken = this.db.prepare('SELECT expires FROM used_signatures WHERE signature = ?').get(signature) as { expires: number } | undefined;
      if (taken && taken.expires >= now) return false;
      this.db.prepare('INSERT OR REPLACE INTO used_signatures (signature, expires) VALUES (?, ?)').run(signature, expires);
      return true;
    })();
  }

  release(signature: string): void {
    this.db.prepare('DELETE FROM used_signatures WHERE signature = ?').run(signature);
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM used_signatures').get() as { n: number }).n;
  }
}
