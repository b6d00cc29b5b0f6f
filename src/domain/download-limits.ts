import type { DownloadClaim } from './ports';

/**
 * Download limits (docs/sharing.md, Download limits). A limit is per link (a recipient's token) and per file:
 * each file may be downloaded whole that many times through the link. A download claims its slot in the
 * database before any byte is sent, so two downloads racing for the last slot cannot both win, on any node; the
 * claim is done (counted) once the file's last byte has gone out.
 */

/** An unfinished claim not used for this long no longer holds its slot (a download abandoned long ago). */
export const CLAIM_IDLE_S = 6 * 3600;

export type ClaimStep = { fileId: number; resume: number } | { fileId: number; claim: true };

/**
 * What a response on these files does with the link's claims: a resumed download (a Range past byte 0) goes on
 * with any unfinished claim; one from byte 0 takes up a claim no response is sending on (a retry after a cut);
 * otherwise a new claim, if the files's done and unfinished claims leave a slot. `refused`: files with none.
 */
export function planClaims(
  claims: DownloadClaim[],
  fileIds: number[],
  limit: number | null,
  fromStart: boolean,
): { steps: ClaimStep[]; refused: number[] } {
  const steps: ClaimStep[] = [];
  const refused: number[] = [];
  for (const fileId of fileIds) {
    const mine = claims.filter((c) => c.fileId === fileId);
    const unfinished = mine.filter((c) => c.done === null && (!fromStart || !c.active));
    const reuse = unfinished[unfinished.length - 1];
    if (reuse) steps.push({ fileId, resume: reuse.id });
    else if (limit !== null && mine.length >= limit) refused.push(fileId);
    else steps.push({ fileId, claim: true });
  }
  return { steps, refused };
}

/** Whether every file has been downloaded whole `limit` times through the link: the link is spent. */
export function linkSpent(claims: DownloadClaim[], fileIds: number[], limit: number | null): boolean {
  if (limit === null || fileIds.length === 0) return false;
  return fileIds.every((id) => claims.filter((c) => c.fileId === id && c.done !== null).length >= limit);
}

/** Files of the link with no download left (done ones only: an unfinished one may still be resumed). */
export function filesSpent(claims: DownloadClaim[], fileIds: number[], limit: number | null): number[] {
  if (limit === null) return [];
  return fileIds.filter((id) => claims.filter((c) => c.fileId === id && c.done !== null).length >= limit);
}

/** The highest download limit a link may have (the upload form says so before sending). */
export const DOWNLOAD_LIMIT_MAX = 1_000_000;

/** A download limit as POST /transfer and PUT /transfer take it: a whole number from 1, or null for none. */
export function isDownloadLimit(v: unknown): v is number | null {
  return v === null || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 && v <= DOWNLOAD_LIMIT_MAX);
}
