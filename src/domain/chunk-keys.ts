import crypto from 'node:crypto';

/** Checks a chunk-upload key (a File uid) against a Transfer. */
export interface ChunkKeyChecker {
  /** True when key is the uid of one of the Transfer's files (compared in constant time). */
  matches(transferId: number, key: string): Promise<boolean>;
}

/**
 * Chunk upload security "key" (spec): the uid of any File of the Transfer is accepted as `key`. Compared in
 * constant time against each uid, so a timing difference tells nothing about how close a guess was.
 */
export function fileKeyChecker(uidsOf: (transferId: number) => Promise<string[]>): ChunkKeyChecker {
  return {
    async matches(transferId, key) {
      if (typeof key !== 'string' || key.length !== 32) return false;
      const given = Buffer.from(key);
      let ok = false;
      for (const uid of await uidsOf(transferId)) {
        const u = Buffer.from(uid);
        if (u.length === given.length && crypto.timingSafeEqual(u, given)) ok = true;
      }
      return ok;
    },
  };
}
