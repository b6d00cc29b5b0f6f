import type { Db } from './connection';
import type { UsedSignatures } from '../auth/remote';

/** Signatures of signed POST/PUT/DELETE requests, kept until their timestamp window has passed (replay refusal). */
export class SignaturesRepo implements UsedSignatures {
  constructor(private readonly db: Db) {}

  /** Remembers a signature until it expires; false when it was already used (a replay). */
  use(signature: string, expires: number, now: number): boolean {
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM used_signatures WHERE expires < ?').run(now);
      return this.db.prepare('INSERT OR IGNORE INTO used_signatures (signature, expires) VALUES (?, ?)').run(signature, expires).changes > 0;
    })();
  }
}
