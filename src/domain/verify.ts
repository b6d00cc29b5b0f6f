import type { Transfer } from './model';
import type { FileStore, Repositories } from './ports';
import { readDigests } from './digests';
import { storedSizeOf } from './uploads';

/** One stored file that is not what its record says. */
export interface VerifyProblem {
  transferId: number;
  fileId: number;
  uid: string;
  /** digest_mismatch: the bytes differ from the recorded SHA-256; unreadable: missing, short, or the store failed. */
  problem: 'digest_mismatch' | 'unreadable';
  detail: string;
}

export interface VerifyProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

export interface VerifyReport extends VerifyProgress {
  problems: VerifyProblem[];
}

const PAGE = 500;

/**
 * The files to verify, a page at a time in id order up to `lastId`, each with the size it has in the store. Only
 * one page and its Transfers are held at once: at a million Transfers the list has millions of files, which
 * once were all held (with a promise each) before the first was read.
 */
async function* storedFiles(repos: Repositories, lastId = Number.MAX_SAFE_INTEGER) {
  for (let after = 0; after < lastId; ) {
    const page = (await repos.transfers.verifiableFiles(after, PAGE)).filter((f) => f.id <= lastId);
    const transfers = new Map<number, Transfer | undefined>();
    for (const f of page) {
      if (!transfers.has(f.transferId)) transfers.set(f.transferId, await repos.transfers.find(f.transferId));
      const t = transfers.get(f.transferId);
      yield { file: f, size: t ? storedSizeOf(t, f) : f.size };
    }
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}

/**
 * `ferry verify`: reads every stored file of a Transfer not closed and compares it with the SHA-256 recorded at
 * completion (docs/hardening.md, "Corrupted stored files"), on whichever store holds the data. Files whose
 * digest is still being computed are left out. Reads only: a problem is reported, never repaired. A first pass
 * over the records counts the files and bytes (for the progress), the second reads them; files completed in
 * between are left to the next run.
 */
export async function verifyStoredFiles(
  repos: Repositories,
  store: FileStore,
  onProgress: (p: VerifyProgress) => void = () => {},
): Promise<VerifyReport> {
  const report: VerifyReport = { files: 0, totalFiles: 0, bytes: 0, totalBytes: 0, problems: [] };
  let lastId = 0;
  for await (const { file, size } of storedFiles(repos)) {
    report.totalFiles++;
    report.totalBytes += size;
    lastId = file.id;
  }
  const progress = (): VerifyProgress => ({
    files: report.files,
    totalFiles: report.totalFiles,
    bytes: report.bytes,
    totalBytes: report.totalBytes,
  });
  onProgress(progress());
  if (!report.totalFiles) return report;
  for await (const { file: f, size } of storedFiles(repos, lastId)) {
    try {
      const { sha256 } = await readDigests(store, f.transferId, f.uid, size);
      if (sha256 !== f.sha256)
        report.problems.push({
          transferId: f.transferId,
          fileId: f.id,
          uid: f.uid,
          problem: 'digest_mismatch',
          detail: `recorded ${f.sha256}, read ${sha256}`,
        });
    } catch (e) {
      report.problems.push({
        transferId: f.transferId,
        fileId: f.id,
        uid: f.uid,
        problem: 'unreadable',
        detail: e instanceof Error ? e.message : String(e),
      });
    }
    report.files++;
    report.bytes += size;
    onProgress(progress());
  }
  return report;
}
