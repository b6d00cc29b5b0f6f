/** A file to put in an archive. Size and CRC-32 are known in advance (stored when the upload completed). */
export interface ArchiveEntry {
  /** Path inside the archive, already made safe (see safeEntryNames). */
  name: string;
  size: number;
  crc32: number;
  /** Modification time, UNIX seconds. */
  mtime: number;
  /** Opaque handle passed back to the opener (a file id, say). */
  ref: unknown;
}

/** An archive is a fixed sequence of header bytes and file bodies, so its length and any byte range are known up front. */
export type Segment = { kind: 'bytes'; data: Buffer } | { kind: 'file'; entry: ArchiveEntry };

export interface ArchiveLayout {
  segments: Segment[];
  length: number;
}

export function segmentLength(s: Segment): number {
  return s.kind === 'bytes' ? s.data.length : s.entry.size;
}

export function layoutOf(segments: Segment[]): ArchiveLayout {
  return { segments, length: segments.reduce((n, s) => n + segmentLength(s), 0) };
}

/** A segment's part inside bytes [start, end] (inclusive) of the archive: [from, to] of the segment. */
export interface SegmentSlice {
  seg: Segment;
  from: number;
  to: number;
}

/** The segments that bytes [start, end] (inclusive) of the archive touch, each with the part of it touched. */
export function* slicesOf(layout: ArchiveLayout, start: number, end: number): Generator<SegmentSlice> {
  let pos = 0;
  for (const seg of layout.segments) {
    const len = segmentLength(seg);
    const segStart = pos;
    const segEnd = pos + len - 1;
    pos += len;
    if (len === 0 || segEnd < start || segStart > end) continue;
    yield { seg, from: Math.max(start, segStart) - segStart, to: Math.min(end, segEnd) - segStart };
  }
}

// Shared with the command-line client, which saves a transfer's files under the same relative paths.
export { safeEntryNames } from '../shared/entry-names';
