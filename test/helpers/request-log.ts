/** Chunk PUTs in a server's request log (one line per request): file id, offset, status. */
export function chunkPuts(lines: string[]): { file: number; offset: number; status: number }[] {
  const out: { file: number; offset: number; status: number }[] = [];
  for (const l of lines) {
    const m = /^PUT \/file\/(\d+)\/chunk\/(\d+)\S* (\d{3}) /.exec(l);
    if (m) out.push({ file: Number(m[1]), offset: Number(m[2]), status: Number(m[3]) });
  }
  return out;
}
