/**
 * Chunk arithmetic shared by the clients (the web page's uploader, `ferry send`) and kept beside the server's
 * own range code: pure functions over the byte ranges a File reports (`ranges`, half-open [start, end)).
 */
export type Range = [number, number];

/**
 * The chunks still to send for a file of `size` bytes: chunk boundaries every `chunkSize` bytes from 0, minus
 * those entirely covered by `have`. A chunk only partly covered is sent whole (the server accepts rewrites of
 * the same bytes), so every chunk sent stays aligned and at most `chunkSize` long.
 */
export function missingChunks(size: number, chunkSize: number, have: Range[]): { offset: number; length: number }[] {
  const out: { offset: number; length: number }[] = [];
  if (size === 0) return out;
  for (let offset = 0; offset < size; offset += chunkSize) {
    const end = Math.min(size, offset + chunkSize);
    if (!have.some(([a, b]) => a <= offset && b >= end)) out.push({ offset, length: end - offset });
  }
  return out;
}

export function isRangeList(v: unknown): v is Range[] {
  return (
    Array.isArray(v) &&
    v.every((r) => Array.isArray(r) && r.length === 2 && r.every((n) => Number.isInteger(n) && n >= 0) && r[0] <= r[1])
  );
}
