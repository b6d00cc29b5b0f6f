import type { FileStore, Repositories } from './ports';
import { hasMultipartUploads } from './ports';

/**
 * Removing a Transfer's or a File's data: unfinished store uploads first (their ids live only in the
 * database; an upload already gone counts as aborted), then the stored objects. Idempotent, so a removal cut
 * short is finished by the next one (the purge's orphan scan finds the objects again).
 */
export async function dropTransferData(repos: Repositories, files: FileStore, transferId: number): Promise<void> {
  await abortUploads(repos, files, transferId, null);
  await files.deleteTransfer(transferId);
}

export async function dropFileData(
  repos: Repositories,
  files: FileStore,
  transferId: number,
  fileId: number,
  uid: string,
): Promise<void> {
  await abortUploads(repos, files, transferId, fileId);
  await files.deleteFile(transferId, uid);
}

async function abortUploads(
  repos: Repositories,
  files: FileStore,
  transferId: number,
  fileId: number | null,
): Promise<void> {
  if (!hasMultipartUploads(files)) return;
  for (const u of await repos.transfers.storeUploads(transferId)) {
    if (fileId !== null && u.fileId !== fileId) continue;
    await files.abortUpload(transferId, u.uid, u.upload);
    await repos.transfers.setStoreUpload(u.fileId, null);
  }
}
