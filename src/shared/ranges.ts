/**
 * Byte ranges of a file: half-open [start, end), sorted, merged. Pure functions, used alike by the server
 * (what a File has received), the web page's uploader and `ferry send` (what was acknowledged).
 */
export type Range = [number, number];

export function addRange(ranges: Range[], start: number, end: number): Range[] {
  if (end <= start) return ranges;
  const out: Range[] = [];
  let s = start;
  let e = end;
  let placed = false;
  for (const [a, b] of ranges) {
    if (b < s) out.push([a, b]);
    else if (a > e) {
      if (!placed) {
        out.push([s, e]);
        placed = true;
      }
      out.push([a, b]);
    } else {
      s = Math.min(s, a);
      e = Math.max(e, b);
    }
  }
  if (!placed) out.push([s, e]);
  return out;
}

export function coveredBytes(ranges: Range[]): number {
  return ranges.reduce((n, [a, b]) => n + (b - a), 0);
}

/** True when [0, size) is received entirely. */
export function isComplete(ranges: Range[], size: number): boolean {
  if (size === 0) return true;
  return ranges.length === 1 && ranges[0][0] === 0 && ranges[0][1] >= size;
}

/** The holes of [0, size): what a resuming client still has to send. */
export function missingRanges(ranges: Range[], size: number): Range[] {
  const out: Range[] = [];
  let pos = 0;
  for (const [a, b] of ranges) {
    if (a > pos) out.push([pos, Math.min(a, size)]);
    pos = Math.max(pos, b);
  }
  if (pos < size) out.push([pos, size]);
  return out;
}

/** A list of ranges as an answer or a stored record may hold one (checked before it is trusted). */
export function isRangeList(v: unknown): v is Range[] {
  return (
    Array.isArray(v) &&
    v.every((r) => Array.isArray(r) && r.length === 2 && r.every((n) => Number.isInteger(n) && n >= 0) && r[0] <= r[1])
  );
}
