/** Chunk PUTs in a server's request log (one line per request): file id, offset, status. */
export function chunkPuts(lines: string[]): { file: number; offset: number; status: number }[] {
  const out: { file: number; offset: number; status: number }[] = [];
  for (const l of lines) {
    const m = /^PUT \/file\/(\d+)\/chunk\/(\d+)\S* (\d{3}) /.exec(l);
    if (m) out.push({ file: Number(m[1]), offset: Number(m[2]), status: Number(m[3]) });
  }
  return out;
}

/** Waits until ok() holds, polling every 50 ms, at most timeoutMs. */
export async function until(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
