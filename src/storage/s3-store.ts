import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import type { FileStore, MultipartUploads, PositionalReader, StoredFile, StoredPiece, WrittenChunk } from '../domain/ports';
import { AbortedError, OverflowError } from './positional-writer';
import { collectBody, countedBody } from './s3-body';
import { S3RangeReader } from './s3-reader';
import { makeS3Client, type S3Settings } from './s3-client';
import { checkFileAddress, checkTransferId } from './file-address';

const MiB = 1024 * 1024;
/** S3's multipart limits: parts of at least 5 MiB except the last, at most 10,000 of them. */
export const MIN_PART = 5 * MiB;
export const MAX_PARTS = 10_000;
/**
 * A body whose length the request did not announce is gathered in memory up to this size (its length is then
 * known before it is sent); larger ones, and every body of announced length, stream to the store.
 */
const GATHER_MAX = 64 * MiB;
/** Part copies and streamed parts run this many at once at completion. */
const COMPLETE_CONCURRENCY = 4;

// The store cannot be reached or failed on its side: 503 storage_unavailable, the client tries again later.
export { StorageDownError } from './errors';
import { StorageDownError } from './errors';

interface Upload {
  id: string;
  /** Bytes per part: part k (from 1) holds bytes [(k-1)·part, k·part) of the file. */
  part: number;
}

function partSizeFor(chunkSize: number): number {
  return Math.max(MIN_PART, chunkSize);
}

/**
 * File data in an S3-compatible bucket, one object per file: `<prefix><transfer id>/<uid>` (never a name a
 * user gave). Chunks map onto it so that no node holds a file, and any node may take any chunk:
 *
 * - a file sent as one chunk is put as the object itself (receipt `w`);
 * - in a larger file, an aligned chunk (at a multiple of the part size, of that size or running to the end)
 *   is part offset/part + 1 of the file's multipart upload, whose id the domain keeps in the database
 *   (receipt `p:<part>:<etag>`); a chunk sent again replaces its part;
 * - any other chunk (unaligned, odd size, sent again with another size) is staged as an object of its own
 *   (`<object>.staged/<start>-<end>`, receipt `s:<that suffix>`); completion builds the parts it
 *   touches with ranged UploadPartCopy, or, where one part needs several staged pieces, streams them into an
 *   UploadPart (ranged GETs, never a whole file in memory), then drops the staged objects.
 *
 * The largest file is MAX_PARTS × the part size (the chunk size, at least 5 MiB): 48.8 GiB with 5 MiB chunks.
 * Parts of an unfinished upload cannot be read back, so a file is readable once complete.
 */
export class S3FileStore implements FileStore, MultipartUploads {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(settings: S3Settings) {
    this.client = makeS3Client(settings);
    this.bucket = settings.bucket;
    this.prefix = settings.prefix;
  }

  uploadNeeded(size: number, chunkSize: number): boolean {
    return size > partSizeFor(chunkSize);
  }

  maxFileSize(chunkSize: number): number {
    return MAX_PARTS * partSizeFor(chunkSize);
  }

  async beginUpload(file: StoredFile, chunkSize: number): Promise<string> {
    const r = await this.guard(this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.keyOf(file.transferId, file.uid) })));
    if (!r.UploadId) throw new StorageDownError('object store: CreateMultipartUpload answered no upload id');
    return JSON.stringify({ id: r.UploadId, part: partSizeFor(chunkSize) } satisfies Upload);
  }

  async abortUpload(transferId: number, uid: string, upload: string): Promise<void> {
    const { id } = JSON.parse(upload) as Upload;
    try {
      await this.guard(this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.keyOf(transferId, uid), UploadId: id })));
    } catch (e) {
      // Already aborted (NoSuchUpload) or completed (Swift: NoSuchKey): nothing left to abort.
      if (!isNotFound(e)) throw e;
    }
  }

  async writeChunk(file: StoredFile, offset: number, data: Readable | Buffer, expected: number, upload: string | null, exact = false): Promise<WrittenChunk> {
    const base = this.keyOf(file.transferId, file.uid);
    const u = upload ? (JSON.parse(upload) as Upload) : null;
    if ((exact || expected > GATHER_MAX) && !Buffer.isBuffer(data)) return this.streamChunk(file, base, offset, data, expected, u);
    const body = await collectBody(data, expected);
    const crc32 = zlib.crc32(body) >>> 0;
    return { written: body.length, crc32, receipt: await this.putChunk(file, base, offset, body.length, body, u) };
  }

  /**
   * A body of announced length, or a large one (a legacy whole-file upload): streamed with that length as its
   * Content-Length, counted and its CRC-32 taken on the way; cut short or running over, the request to the store
   * is aborted and nothing is recorded. The SDK cannot send such a body twice, so a store that fails midway
   * fails the chunk (503), which the client sends again.
   */
  private async streamChunk(file: StoredFile, base: string, offset: number, data: Readable, expected: number, u: Upload | null): Promise<WrittenChunk> {
    const abort = new AbortController();
    const counted = countedBody(data, expected, abort);
    let receipt: string;
    try {
      receipt = await this.putChunk(file, base, offset, expected, counted.stream, u, abort.signal);
    } catch (e) {
      throw counted.failure() ?? e;
    }
    return { written: expected, crc32: counted.crc32(), receipt };
  }

  /**
   * Sends a chunk's `length` bytes where they belong: the object itself (the whole file), its multipart upload's
   * part, or else an object staged beside it. Returns the chunk's receipt.
   */
  private async putChunk(file: StoredFile, base: string, offset: number, length: number, body: Buffer | Readable, u: Upload | null, abortSignal?: AbortSignal): Promise<string> {
    const options = abortSignal ? { abortSignal } : undefined;
    if (offset === 0 && length === file.size) {
      await this.guard(this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: base, Body: body, ContentLength: length }), options), abortSignal);
      return 'w';
    }
    const part = u ? partNumberOf(u, file.size, offset, length) : null;
    if (u && part !== null) {
      const r = await this.guard(this.client.send(new UploadPartCommand({ Bucket: this.bucket, Key: base, UploadId: u.id, PartNumber: part, Body: body, ContentLength: length }), options), abortSignal);
      return `p:${part}:${r.ETag}`;
    }
    const suffix = stagedSuffix(offset, offset + length);
    await this.guard(this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: base + suffix, Body: body, ContentLength: length }), options), abortSignal);
    return `s:${suffix}`;
  }

  async complete(file: StoredFile, pieces: StoredPiece[], upload: string | null): Promise<void> {
    const key = this.keyOf(file.transferId, file.uid);
    const u = upload ? (JSON.parse(upload) as Upload) : null;
    const whole = pieces.find((p) => p.receipt === 'w' && p.start === 0 && p.end === file.size);
    if (file.size === 0 || whole) {
      if (file.size === 0) await this.guard(this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: Buffer.alloc(0), ContentLength: 0 })));
      if (upload) await this.abortUpload(file.transferId, file.uid, upload);
    } else if (!(await this.isStored(key, file.size))) {
      // (A completion run again after a crash finds the object there.)
      try {
        if (u) await this.completeMultipart(key, file.size, pieces, u);
        else await this.guard(this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: this.stagedStream(key, pieces, 0, file.size), ContentLength: file.size })));
      } catch (e) {
        // Another node completed the same file meanwhile (and removed the staged pieces this one was copying).
        if (!(await this.isStored(key, file.size))) throw e;
      }
    }
    // Every staged piece, also those a later chunk replaced (no longer in the records).
    await this.deleteKeys((await this.listKeys(`${key}.staged/`)).map((o) => o.key)).catch(() => {
      // Left for the Transfer's deletion, which removes everything under its prefix.
    });
  }

  private async completeMultipart(key: string, size: number, pieces: StoredPiece[], u: Upload): Promise<void> {
    const count = Math.ceil(size / u.part);
    const etags: string[] = new Array(count);
    const todo: number[] = [];
    for (let k = 1; k <= count; k++) {
      const a = (k - 1) * u.part;
      const b = Math.min(k * u.part, size);
      const own = pieces.find((p) => p.start === a && p.end === b && p.receipt.startsWith(`p:${k}:`));
      if (own) etags[k - 1] = own.receipt.slice(`p:${k}:`.length);
      else todo.push(k);
    }
    await inParallel(todo, COMPLETE_CONCURRENCY, async (k) => {
      const a = (k - 1) * u.part;
      const b = Math.min(k * u.part, size);
      const sources = stagedCover(pieces, a, b);
      if (sources.length === 1) {
        const src = sources[0];
        const from = a - src.piece.start;
        const r = await this.guard(
          this.client.send(new UploadPartCopyCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId: u.id,
            PartNumber: k,
            CopySource: `${this.bucket}/${encodeURIComponent(key + src.piece.receipt.slice(2)).replace(/%2F/g, '/')}`,
            CopySourceRange: `bytes=${from}-${from + (b - a) - 1}`,
          })),
        );
        etags[k - 1] = r.CopyPartResult!.ETag!;
      } else {
        const r = await this.guard(this.client.send(new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: u.id, PartNumber: k, Body: this.stagedStream(key, pieces, a, b), ContentLength: b - a })));
        etags[k - 1] = r.ETag!;
      }
    });
    await this.guard(
      this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: u.id, MultipartUpload: { Parts: etags.map((ETag, i) => ({ PartNumber: i + 1, ETag })) } })),
    );
  }

  /** Bytes [a, b) of the file from its staged pieces, read with ranged GETs one after another. */
  private stagedStream(key: string, pieces: StoredPiece[], a: number, b: number): Readable {
    const sources = stagedCover(pieces, a, b);
    const self = this;
    return Readable.from(
      (async function* () {
        for (const s of sources) {
          const from = s.from - s.piece.start;
          const r = await self.guard(self.client.send(new GetObjectCommand({ Bucket: self.bucket, Key: key + s.piece.receipt.slice(2), Range: `bytes=${from}-${from + (s.to - s.from) - 1}` })));
          yield* r.Body as Readable;
        }
      })(),
      { objectMode: false },
    );
  }

  async openRead(transferId: number, uid: string, start: number, end: number): Promise<PositionalReader> {
    const key = this.keyOf(transferId, uid);
    return new S3RangeReader(start, end, async (from, to) => {
      const r = await this.guard(this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${from}-${to}` })));
      return r.Body as Readable;
    });
  }

  async deleteFile(transferId: number, uid: string): Promise<void> {
    // The object and its staged pieces: every key starting with the object's.
    await this.deleteKeys((await this.listKeys(this.keyOf(transferId, uid))).map((o) => o.key));
  }

  async deleteTransfer(transferId: number): Promise<void> {
    checkTransferId(transferId);
    await this.deleteKeys((await this.listKeys(`${this.prefix}${transferId}/`)).map((o) => o.key));
  }

  async list(): Promise<{ transferId: number; uid: string; size: number }[]> {
    const sizes = new Map<string, { transferId: number; uid: string; size: number }>();
    for (const o of await this.listKeys(this.prefix)) {
      const m = /^(\d+)\/([0-9a-f]{32})(\.staged\/.*)?$/.exec(o.key.slice(this.prefix.length));
      if (!m) continue; // not ferry's
      const k = `${m[1]}/${m[2]}`;
      const entry = sizes.get(k) ?? { transferId: Number(m[1]), uid: m[2], size: 0 };
      entry.size += o.size;
      sizes.set(k, entry);
    }
    return [...sizes.values()];
  }

  async transferDirs(): Promise<number[]> {
    return [...new Set((await this.list()).map((f) => f.transferId))];
  }

  async check(): Promise<void> {
    await this.guard(this.client.send(new HeadBucketCommand({ Bucket: this.bucket })));
  }

  async usedBytes(): Promise<number> {
    return (await this.list()).reduce((n, f) => n + f.size, 0);
  }

  /** An S3 bucket has no free space to report: the admin's overview shows only what is used. */
  async space(): Promise<null> {
    return null;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private keyOf(transferId: number, uid: string): string {
    checkFileAddress(transferId, uid);
    return `${this.prefix}${transferId}/${uid}`;
  }

  private async isStored(key: string, size: number): Promise<boolean> {
    try {
      const h = await this.guard(this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
      return h.ContentLength === size;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  private async listKeys(prefix: string): Promise<{ key: string; size: number }[]> {
    const out: { key: string; size: number }[] = [];
    let token: string | undefined;
    for (let page = 0; page < 1_000_000; page++) {
      const r = await this.guard(this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token })));
      for (const o of r.Contents ?? []) if (o.Key) out.push({ key: o.Key, size: o.Size ?? 0 });
      if (!r.IsTruncated || !r.NextContinuationToken) break;
      token = r.NextContinuationToken;
    }
    return out;
  }

  private async deleteKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const r = await this.guard(this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })));
      const failed = (r.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length) throw new Error(`deleting ${failed.length} object(s) failed: ${failed[0].Code} ${failed[0].Message ?? ''}`);
    }
  }

  /** Every call to the store: a store that cannot be reached, or fails on its side, becomes StorageDownError. */
  private async guard<T>(call: Promise<T>, abortSignal?: AbortSignal): Promise<T> {
    try {
      return await call;
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (e instanceof OverflowError || e instanceof AbortedError) throw e;
      if (abortSignal?.aborted) throw e;
      if (status === undefined || status >= 500) throw new StorageDownError(`object store: ${(e as Error).message}`, { cause: e });
      if ((e as Error).name === 'InvalidArgument' && /part/i.test((e as Error).message)) {
        // Swift's s3api allows 1,000 parts per upload unless raised: say what to change, not just "invalid".
        throw new Error(`the object store refused a multipart part (${(e as Error).message}): ferry counts on 10,000 parts per upload (Swift's s3api: raise max_upload_part_num and max_manifest_segments)`, { cause: e });
      }
      throw e;
    }
  }
}

/** The part number a chunk is, or null when it is not a whole part (then it is staged). */
function partNumberOf(u: Upload, size: number, offset: number, length: number): number | null {
  if (length === 0 || offset % u.part !== 0) return null;
  if (length !== u.part && offset + length !== size) return null;
  return offset / u.part + 1;
}

/** A chunk sent again with the same range overwrites its staged object (its bytes are the same file's). */
function stagedSuffix(start: number, end: number): string {
  return `.staged/${start}-${end}`;
}

/**
 * Which staged pieces give bytes [a, b): from each position the piece reaching farthest (pieces may overlap;
 * their bytes are the same file's). Throws when a byte is in no staged piece: the recorded pieces do not
 * make the file (a bug, or rows changed by hand), and completing it would store a wrong file.
 */
function stagedCover(pieces: StoredPiece[], a: number, b: number): { piece: StoredPiece; from: number; to: number }[] {
  const staged = pieces.filter((p) => p.receipt.startsWith('s:'));
  const out: { piece: StoredPiece; from: number; to: number }[] = [];
  for (let pos = a; pos < b; ) {
    let best: StoredPiece | null = null;
    for (const p of staged) if (p.start <= pos && p.end > pos && (!best || p.end > best.end)) best = p;
    if (!best) throw new Error(`bytes from ${pos} of the file are in no staged piece`);
    const to = Math.min(best.end, b);
    out.push({ piece: best, from: pos, to });
    pos = to;
  }
  return out;
}

function isNotFound(e: unknown): boolean {
  const x = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return x?.$metadata?.httpStatusCode === 404 || x?.name === 'NoSuchUpload' || x?.name === 'NoSuchKey' || x?.name === 'NotFound';
}

async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}
