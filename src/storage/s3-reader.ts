import type { Readable } from 'node:stream';
import type { PositionalReader } from '../domain/ports';
import { objectStoreGarbage } from '../util/socket-garbage';
import { StorageDownError } from './errors';
import { REQUEST_TIMEOUT_MS } from './s3-client';

/**
 * Longest the store may go without sending a byte of an answer's body while ferry waits for one. The S3 client's
 * requestTimeout ends once the answer's headers came, and a slow downloader holds the body back too, so the
 * wait is timed here, only while a read waits on the store: a body that stalls (headers came, then nothing)
 * fails the read with storage_unavailable; a download is then cut, for its client to resume with Range
 * (docs/deploying.md, "When the store or the database fails").
 */
export const BODY_STALL_MS = REQUEST_TIMEOUT_MS;

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

  private opening: Promise<void> | null = null;

  /** Sends the GET now, ahead of the first read (the reader of the next segment, while this one is read). */
  prefetch(): void {
    if (!this.body && !this.opening) {
      this.opening = this.reopen(this.pos);
      // A failure is met again by the first read, which waits for it.
      this.opening.catch(() => {});
    }
  }

  async read(buf: Buffer, length: number, position: number): Promise<number> {
    if (position > this.end || length <= 0) return 0;
    if (this.opening) {
      const opening = this.opening;
      this.opening = null;
      await opening;
    }
    if (!this.body || position !== this.pos) await this.reopen(position);
    let n = 0;
    const want = Math.min(length, this.end - position + 1);
    while (n < want) {
      if (this.leftover.length === 0) {
        const r = await this.nextBlock();
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

  /** The body's next block, or StorageDownError once the store has sent nothing for BODY_STALL_MS. */
  private async nextBlock(): Promise<IteratorResult<Buffer>> {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StorageDownError(`the object store sent no bytes of its answer for ${BODY_STALL_MS} ms`)),
        BODY_STALL_MS,
      );
    });
    try {
      return await Promise.race([this.body!.next(), stalled]);
    } catch (e) {
      // The frozen connection is let go (not put back into the pool); a later read opens a new GET.
      this.stream?.destroy();
      this.stream = null;
      this.body = null;
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.opening) {
      const opening = this.opening;
      this.opening = null;
      await opening.catch(() => {});
    }
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

/** How S3FileReader reaches a file's bytes: its own object, or else its segments. */
export interface S3FileSource {
  get(key: string, from: number, to: number): Promise<Readable>;
  /** The file's object. */
  key: string;
  /** Segment j's object, for a file kept in segments. */
  segmentKey(j: number): string;
  /** Bytes per segment (the first segment's size), or null when there is none. */
  segmentSize(): Promise<number | null>;
  isNotFound(e: unknown): boolean;
}

/**
 * Bytes [start, end] of a stored file, whether it is one object or segments (src/storage/s3-store.ts): the
 * first read tries the object itself, so a file in one object costs no extra request; when there is none, the
 * reads go on through the segments, one ranged GET per segment crossed (a read stops at a segment's end).
 */
export class S3FileReader implements PositionalReader {
  private reader: S3RangeReader | null = null;
  /** The next segment's reader, its GET already sent, while `reader` is read. */
  private next: { segment: number; reader: S3RangeReader } | null = null;
  /** Bytes per segment once known to be segmented; 0 while the file is read as one object. */
  private seg = 0;
  /** The segment `reader` reads, when segmented. */
  private segment = -1;

  constructor(
    private readonly start: number,
    private readonly end: number,
    private readonly src: S3FileSource,
  ) {}

  async read(buf: Buffer, length: number, position: number): Promise<number> {
    if (position > this.end || length <= 0) return 0;
    if (this.seg === 0) {
      this.reader ??= new S3RangeReader(this.start, this.end, (from, to) => this.src.get(this.src.key, from, to));
      try {
        return await this.reader.read(buf, length, position);
      } catch (e) {
        if (!this.src.isNotFound(e)) throw e;
        await this.reader.close();
        this.reader = null;
        const seg = await this.src.segmentSize();
        if (!seg) throw e;
        this.seg = seg;
      }
    }
    const j = Math.floor(position / this.seg);
    if (j !== this.segment || !this.reader) {
      await this.reader?.close();
      if (this.next?.segment === j && position === j * this.seg) {
        this.reader = this.next.reader;
      } else {
        await this.next?.reader.close();
        this.reader = this.segmentReader(j, position);
      }
      this.segment = j;
      // Each segment is a GET of its own: the next one's first bytes are on their way while this one is read.
      this.next =
        (j + 1) * this.seg <= this.end
          ? { segment: j + 1, reader: this.segmentReader(j + 1, (j + 1) * this.seg) }
          : null;
      this.next?.reader.prefetch();
    }
    return this.reader.read(buf, length, position - j * this.seg);
  }

  private segmentReader(j: number, position: number): S3RangeReader {
    const base = j * this.seg;
    const to = Math.min(this.end, base + this.seg - 1);
    return new S3RangeReader(position - base, to - base, (from, t) => this.src.get(this.src.segmentKey(j), from, t));
  }

  async close(): Promise<void> {
    await this.reader?.close();
    await this.next?.reader.close();
    this.reader = null;
    this.next = null;
  }
}
