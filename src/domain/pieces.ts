import type { StoredPiece } from './ports';
import { crc32Combine } from './crc32-combine';

/**
 * Whole recorded pieces that lie end to end over [0, size), or null when none do (a chunk sent again with
 * another size overlaps others only in part). Searched breadth-first over the positions reachable from 0,
 * so a cover is found whenever one exists; the later piece wins when two have the same range.
 */
export function tilingOf(pieces: StoredPiece[], size: number): StoredPiece[] | null {
  if (size === 0) return [];
  const byStart = new Map<number, StoredPiece[]>();
  for (const p of pieces) if (p.end > p.start) byStart.set(p.start, [...(byStart.get(p.start) ?? []), p]);
  const via = new Map<number, StoredPiece>();
  const queue = [0];
  for (let i = 0; i < queue.length; i++) {
    for (const p of byStart.get(queue[i]) ?? []) {
      if (p.end > size || via.has(p.end)) continue;
      via.set(p.end, p);
      queue.push(p.end);
    }
  }
  if (!via.has(size)) return null;
  const out: StoredPiece[] = [];
  for (let pos = size; pos > 0; pos = out[0].start) out.unshift(via.get(pos)!);
  return out;
}

/** The CRC-32 of a file from its pieces' (crc32_combine), or null when no whole pieces with a CRC-32 tile it. */
export function combinedCrc32(pieces: StoredPiece[], size: number): number | null {
  const tiling = tilingOf(pieces, size);
  if (!tiling || tiling.some((p) => p.crc32 === null)) return null;
  return tiling.reduce((crc, p) => crc32Combine(crc, p.crc32!, p.end - p.start), 0);
}
