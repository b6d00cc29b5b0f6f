import type { Readable } from 'node:stream';
import type { PositionalReader } from '../domain/ports';
import { objectStoreGarbage } from '../util/socket-garbage';

/**
 * Bytes [start, end] of an object, read forwards through one ranged GET into the caller's buffers: the
 * response is pulled only as fast as the caller reads (backpressure to the store), so memory stays flat. A
 * read at another position than where the last one ended opens a new ranged GET from there.
 */
export class S3RangeReader implements PositionalReader {
  private body: AsyncIterator<Buffer> | null = null;
  private stream: Readable | null = null;
  private leftover: Buffer = Buffer.alloc(0);
  private pos: number;

  constructor(
    start: number,
    private readonly end: number,
    private readonly get: (from: number, to: number) => Promise<Readable>,
  ) {
    this.pos = start;
  }

  async read(buf: Buffer, length: number, position: number): Promise<number> {
    if (position > this.end || length <= 0) return 0;
    if (!this.body || position !== this.pos) await this.reopen(position);
    let n = 0;
    const want = Math.min(length, this.end - position + 1);
    while (n < want) {
      if (this.leftover.length === 0) {
        const r = await this.body!.next();
        if (r.done) break;
        this.leftover = r.value;
        objectStoreGarbage.discarded(r.value.length);
      }
      const take = Math.min(want - n, this.leftover.length);
      this.leftover.copy(buf, n, 0, take);
      this.leftover = this.leftover.subarray(take);
      n += take;
    }
    this.pos += n;
    return n;
  }

  async close(): Promise<void> {
    this.stream?.destroy();
    this.stream = null;
    this.body = null;
  }

  private async reopen(position: number): Promise<void> {
    await this.close();
    this.stream = await this.get(position, this.end);
    this.body = (this.stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    this.leftover = Buffer.alloc(0);
    this.pos = position;
  }
}
