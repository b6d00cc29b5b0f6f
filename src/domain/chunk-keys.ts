import crypto from 'node:crypto';
import type { ChunkKeyChecker } from './services';

/**
 * Chunk upload security "key" (spec): the uid of any File of the Transfer is accepted as `key`. Compared in
 * constant time against each uid, so a timing difference tells nothing about how close a guess was.
 */
export function fileKeyChecker(uidsOf: (transferId: number) => string[]): ChunkKeyChecker {
  return {
    matches(transferId, key) {
      if (typeof key !== 'string' || key.length !== 32) return false;
      const given = Buffer.from(key);
      let ok = false;
      for (const uid of uidsOf(transferId)) {
        const u = Buffer.from(uid);
        if (u.length === given.length && crypto.timingSafeEqual(u, given)) ok = true;
      }
      return ok;
    },
  };
}
