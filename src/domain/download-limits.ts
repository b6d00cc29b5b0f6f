import type { DownloadClaim } from './ports';
import { addRange, isComplete, type Range } from '../shared/ranges';

/**
 * Download limits (docs/sharing.md, Download limits). A limit is per link (a recipient's token) and per file:
 * each file may be delivered whole that many times through the link. Each copy is a claim in the database,
 * taken before any byte is sent, while the link is held, so racing downloads cannot both win on any node. A
 * claim records the byte ranges its responses sent and is held by one response at a time (a lease): a copy
 * counts (done) once every byte of the file has been sent on it, and the same link may resume it, sending
 * again only what a cut response may have lost in transit. So the bytes sent on one claim never make two
 * copies: at most the file once, plus under half of it again.
 */

/** How long a response holds its claim without renewing it (a node that died lets its claims go). */
export const CLAIM_LEASE_S = 60;
/** How often a sending response renews its lease (and records how far it got). */
export const CLAIM_RENEW_MS = 15_000;
/** How long a request waits for a copy another response holds (see planClaims' `busy`) before it goes without. */
export const CLAIM_WAIT_MS = 2000;

/** What a response sends of one file: bytes [start, end) of the file as served (of size bytes). */
export interface FileSpan {
  fileId: number;
  size: number;
  start: number;
  end: number;
}

/**
 * The bytes a copy may send again in all: what cut connections lost in transit (the socket buffers between
 * ferry and the recipient hold a few MiB), or a download started again from byte 0 after an early cut. Under
 * half the file, so a link never gets more than one and a half files' bytes for one counted copy.
 */
export function resendAllowance(size: number): number {
  return Math.floor((size - 1) / 2);
}

/** The bytes of [start, end) already among `ranges`. */
export function overlap(ranges: Range[], start: number, end: number): number {
  let n = 0;
  for (const [a, b] of ranges) n += Math.max(0, Math.min(b, end) - Math.max(a, start));
  return n;
}

/** What a claim has sent: a done one, the whole file (rows from before ranges were recorded have none). */
export function sentOf(c: DownloadClaim, size: number): Range[] {
  return c.done !== null ? [[0, size]] : c.sent;
}

/**
 * Whether a recipient has received every byte of a file over all their copies of it: a range resumed while the
 * answer it resumes still held its copy goes on a copy of its own (with no download limit nothing waits for that
 * lease), and the two halves are still one file received whole (docs/sharing.md, Download limits).
 */
export function receivedWhole(claims: DownloadClaim[], fileId: number, size: number): boolean {
  let sent: Range[] = [];
  for (const c of claims) if (c.fileId === fileId) for (const [a, b] of sentOf(c, size)) sent = addRange(sent, a, b);
  return size === 0 ? claims.some((c) => c.fileId === fileId) : isComplete(sent, size);
}

/** A claim a response goes on with (`claim` undefined: a new one), and what it had sent before. */
export interface ClaimStep {
  span: FileSpan;
  claim?: DownloadClaim;
}

/**
 * Which claim each span of a response is sent on: one no other response holds, whose bytes sent again stay
 * within its allowance (the fewest sent again; an unfinished copy before a done one); else a new claim if
 * the file's claims leave a slot (every claim holds one: done, unfinished or being sent). `refused`: files
 * with none. `busy`: under a limit, a file would have gone on with a copy another response holds (the caller
 * may wait for it a moment: a client fetching a file chunk after chunk asks for the next before the end of the
 * last one is recorded).
 */
export function planClaims(
  claims: DownloadClaim[],
  spans: FileSpan[],
  limit: number | null,
  now: number,
): { steps: ClaimStep[]; refused: number[]; busy: boolean } {
  const steps: ClaimStep[] = [];
  const refused: number[] = [];
  let busy = false;
  for (const span of spans) {
    const mine = claims.filter((c) => c.fileId === span.fileId);
    let best: { claim: DownloadClaim; again: number } | undefined;
    let held = false;
    for (const claim of mine) {
      // An empty file has no bytes to send again: a done copy of it is never sent again.
      if (span.size === 0 && claim.done !== null) continue;
      const again = overlap(sentOf(claim, span.size), span.start, span.end);
      if (claim.resent + again > resendAllowance(span.size) && again > 0) continue;
      if (claim.leaseUntil > now) {
        held = true; // another response is sending on it
        continue;
      }
      if (!best || again < best.again || (again === best.again && best.claim.done !== null && claim.done === null))
        best = { claim, again };
    }
    if (best) steps.push({ span, claim: best.claim });
    else {
      busy ||= held && limit !== null;
      if (limit !== null && mine.length >= limit) refused.push(span.fileId);
      else steps.push({ span });
    }
  }
  return { steps, refused, busy };
}

/**
 * A response on a claim sent bytes [span.start, span.start + bytes): the claim's ranges and bytes sent again
 * after it, counted from what the claim held before the response (so recording it again as it goes is safe).
 */
export function progressOf(
  before: { sent: Range[]; resent: number; done: number | null },
  span: FileSpan,
  bytes: number,
  now: number,
): { sent: Range[]; resent: number; done: number | null } {
  const end = span.start + Math.max(0, Math.min(bytes, span.end - span.start));
  const sent = addRange(before.sent, span.start, end);
  const resent = before.resent + overlap(before.sent, span.start, end);
  const whole = span.size === 0 ? bytes >= 0 : isComplete(sent, span.size);
  return { sent, resent, done: before.done ?? (whole ? now : null) };
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
