import { fitBytes, visibleName } from '../util/names';

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

/**
 * Entry names from user-given file names: never absolute, no "." or ".." segments, no backslashes, control or
 * bidi characters, no component longer than file systems take (255 bytes), and unique (a repeated name gets
 * " (2)", " (3)" before its extension).
 */
export function safeEntryNames(names: string[]): string[] {
  const used = new Set<string>();
  return names.map((original) => {
    const cleaned = visibleName(original)
      .replace(/\\/g, '/')
      .replace(/^[A-Za-z]:/, '')
      .split('/')
      .filter((seg) => seg !== '' && seg !== '.' && seg !== '..')
      .map((seg) => fitBytes(seg))
      .join('/');
    const base = cleaned || 'file';
    let candidate = base;
    for (let i = 2; used.has(candidate.toLowerCase()); i++) {
      const dot = base.lastIndexOf('.');
      const slash = base.lastIndexOf('/');
      candidate = dot > slash + 1 ? `${base.slice(0, dot)} (${i})${base.slice(dot)}` : `${base} (${i})`;
    }
    used.add(candidate.toLowerCase());
    return candidate;
  });
}
