import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { Clock, FileStore, Repositories } from './ports';
import { encryptedSize } from '../shared-crypto/format';
import { JobRunner } from './job-runner';

const MiB = 1024 * 1024;
/**
 * A claim on a file's SHA-256 lasts this long and is renewed every RENEW_MS while its node reads the file; a node
 * that died with it leaves it to another after that (docs/deploying.md, "When a node dies").
 */
const CLAIM_S = 30;
const RENEW_MS = 10_000;

/** CRC-32 and SHA-256 of a stored file, read back through the store (1 MiB reads into one buffer). */
export async function readDigests(
  files: FileStore,
  transferId: number,
  uid: string,
  size: number,
): Promise<{ crc32: number; sha256: string }> {
  const hash = crypto.createHash('sha256');
  let crc = 0;
  if (size > 0) {
    const reader = await files.openRead(transferId, uid, 0, size - 1);
    const buf = Buffer.allocUnsafe(MiB);
    try {
      for (let pos = 0; pos < size; ) {
        const n = await reader.read(buf, Math.min(MiB, size - pos), pos);
        if (n === 0) throw new Error(`stored file ${transferId}/${uid} is shorter than its ${size} bytes`);
        const block = buf.subarray(0, n);
        hash.update(block);
        crc = zlib.crc32(block, crc);
        pos += n;
      }
    } finally {
      await reader.close();
    }
  }
  return { crc32: crc >>> 0, sha256: hash.digest('hex') };
}

/**
 * SHA-256 of completed files on stores that cannot hash during the upload (S3: no node sees every chunk).
 * Completion leaves `sha256` null; a job on any node claims the file in the database (a lease, like the mail
 * queue's claims), reads the object back and saves the digest. Completion never waits for it.
 */
export class DigestJobs {
  private readonly runner: JobRunner;

  constructor(
    private readonly repos: Repositories,
    private readonly files: FileStore,
    private readonly clock: Clock,
    private readonly onError: (e: Error) => void,
    /** Says what this node claims, finishes and takes over (src/compose/node.ts adds the node's name). */
    private readonly note: (msg: string) => void = () => {},
  ) {
    this.runner = new JobRunner(() => this.drain(), onError);
  }

  /** Works through the waiting files now (a second call while running makes it look again when done). */
  kick(): Promise<void> {
    return this.runner.kick();
  }

  /** Takes no more files and waits for the one being read (its claim lapses if the process dies instead). */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  private async drain(): Promise<void> {
    while (!this.runner.stopped) {
      const now = this.clock();
      const f = await this.repos.transfers.claimDigest(now, now + CLAIM_S);
      if (!f) return;
      const t = await this.repos.transfers.find(f.transferId);
      if (!t) continue;
      this.note(
        `${f.lapsed ? 'took over (its claim lapsed)' : 'claimed'} the SHA-256 of file ${f.id} of transfer ${t.id}`,
      );
      const renew = setInterval(() => {
        this.repos.transfers.renewDigest(f.id, this.clock() + CLAIM_S).catch((e: Error) => this.onError(e));
      }, RENEW_MS);
      renew.unref();
      try {
        const { sha256 } = await readDigests(
          this.files,
          t.id,
          f.uid,
          t.encryption ? encryptedSize(f.size, t.encryption.chunkSize) : f.size,
        );
        await this.repos.transfers.saveDigest(f.id, sha256);
      } finally {
        clearInterval(renew);
      }
      this.note(`finished the SHA-256 of file ${f.id} of transfer ${t.id}`);
    }
  }
}
