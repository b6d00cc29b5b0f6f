import crypto from 'node:crypto';
import type { TestResponse } from './server';

type Req = (
  method: string,
  path: string,
  init?: { json?: unknown; body?: Buffer; headers?: Record<string, string> },
) => Promise<TestResponse>;

/**
 * Deterministic pseudo-random bytes: the same seed gives the same file, without keeping it in a fixture. An
 * AES-CTR keystream, fast enough for megabytes on a busy machine.
 */
export function patternBytes(seed: string, size: number): Buffer {
  const key = crypto.createHash('sha256').update(seed).digest().subarray(0, 16);
  return crypto.createCipheriv('aes-128-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(size));
}

export function sha256(b: Buffer): string {
  return crypto.createHash('sha256').update(b).digest('hex');
}

export function inAWeek(): number {
  return Math.floor(Date.now() / 1000) + 7 * 86400;
}

/** The headers of one chunk PUT, as FileSender's clients send it: `length` bytes at `offset` of `fileSize`. */
export function chunkHeaders(fileSize: number, offset: number, length: number): Record<string, string> {
  return {
    'content-type': 'application/octet-stream',
    'X-Service-File-Size': String(fileSize),
    'X-Service-Chunk-Offset': String(offset),
    'X-Service-Chunk-Size': String(length),
  };
}

/**
 * Sends a file's chunks in the given order with `parallel` in flight, through the spec's chunk endpoint with
 * its X-Service headers. Returns the responses in completion order.
 */
export async function sendChunks(
  request: Req,
  fileId: number,
  data: Buffer,
  chunkSize: number,
  opts: { parallel?: number; order?: number[]; headers?: Record<string, string>; query?: string } = {},
): Promise<TestResponse[]> {
  const count = Math.ceil(data.length / chunkSize);
  const order = opts.order ?? [...Array(count).keys()];
  const queue = [...order];
  const results: TestResponse[] = [];
  const worker = async () => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
      const offset = i * chunkSize;
      const chunk = data.subarray(offset, Math.min(offset + chunkSize, data.length));
      const r = await request('PUT', `/file/${fileId}/chunk/${offset}${opts.query ?? ''}`, {
        body: chunk,
        headers: { ...chunkHeaders(data.length, offset, chunk.length), ...(opts.headers ?? {}) },
      });
      results.push(r);
    }
  };
  await Promise.all(Array.from({ length: opts.parallel ?? 1 }, worker));
  return results;
}

/** A shuffled order (deterministic from the seed) so tests send chunks out of order. */
export function shuffled(n: number, seed = 1): number[] {
  const a = [...Array(n).keys()];
  let s = seed;
  for (let i = n - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
