import type { FileRecord, Transfer } from './model';
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
 * `ferry verify`: reads every stored file of a Transfer not closed and compares it with the SHA-256 recorded at
 * completion (docs/hardening.md, "Corrupted stored files"), on whichever store holds the data. Files whose
 * digest is still being computed are left out. Reads only: a problem is reported, never repaired.
 */
export async function verifyStoredFiles(
  repos: Repositories,
  store: FileStore,
  onProgress: (p: VerifyProgress) => void = () => {},
): Promise<VerifyReport> {
  const files: FileRecord[] = [];
  for (let after = 0; ; ) {
    const page = await repos.transfers.verifiableFiles(after, PAGE);
    files.push(...page);
    if (page.length < PAGE) break;
    after = page[page.length - 1].id;
  }
  const transfers = new Map<number, Transfer | undefined>();
  const transferOf = async (id: number) => {
    if (!transfers.has(id)) transfers.set(id, await repos.transfers.find(id));
    return transfers.get(id);
  };
  const sizes = await Promise.all(
    files.map(async (f) => {
      const t = await transferOf(f.transferId);
      return t ? storedSizeOf(t, f) : f.size;
    }),
  );
  const report: VerifyReport = {
    files: 0,
    totalFiles: files.length,
    bytes: 0,
    totalBytes: sizes.reduce((a, b) => a + b, 0),
    problems: [],
  };
  onProgress({ ...report });
  for (const [i, f] of files.entries()) {
    try {
      const { sha256 } = await readDigests(store, f.transferId, f.uid, sizes[i]);
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
    report.bytes += sizes[i];
    onProgress({
      files: report.files,
      totalFiles: report.totalFiles,
      bytes: report.bytes,
      totalBytes: report.totalBytes,
    });
  }
  return report;
}
