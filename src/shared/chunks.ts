import type { Range } from './ranges';

/**
 * Chunk planning shared by the clients (the web page's uploader, `ferry send`): which chunks of a file are
 * still to send, given the byte ranges known to be on the server.
 */

export interface ChunkPlan {
  offset: number;
  length: number;
}

/**
 * The chunks still to send for a file of `size` bytes: chunk boundaries every `chunkSize` bytes from 0, minus
 * those entirely covered by `have`. A chunk only partly covered is sent whole (the server accepts rewrites of
 * the same bytes), so every chunk sent stays aligned and at most `chunkSize` long.
 */
export function missingChunks(size: number, chunkSize: number, have: Range[]): ChunkPlan[] {
  const out: ChunkPlan[] = [];
  if (size === 0) return out;
  for (let offset = 0; offset < size; offset += chunkSize) {
    const end = Math.min(size, offset + chunkSize);
    if (!have.some(([a, b]) => a <= offset && b >= end)) out.push({ offset, length: end - offset });
  }
  return out;
}

/** The number of a chunk (an encrypted chunk's IV counts them), from its offset. */
export function chunkIndex(offset: number, chunkSize: number): number {
  return Math.floor(offset / chunkSize);
}
