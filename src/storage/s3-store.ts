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
import type {
  ChunkGuard,
  FileStore,
  MultipartUploads,
  PositionalReader,
  SignedBody,
  StoredFile,
  StoredPiece,
  WrittenChunk,
} from '../domain/ports';
import { AbortedError, gapsOf, OverflowError } from './positional-writer';
import { collectBody, countedBody, drainBody } from './s3-body';
import { S3FileReader } from './s3-reader';
import { LONG_REQUEST_TIMEOUT_MS, makeS3Client, REQUEST_TIMEOUT_MS, type S3Settings } from './s3-client';
import { checkFileAddress, checkTransferId } from './file-address';

const MiB = 1024 * 1024;
/** S3's multipart limits: parts of at least 5 MiB except the last, at most 10,000 of them. */
export const MIN_PART = 5 * MiB;
export const MAX_PARTS = 10_000;
/** S3's largest object (5 TiB): a segment is never larger. */
const MAX_OBJECT = 5 * 1024 * 1024 * MiB;
/**
 * A file of more parts than this (in all its segments) is assembled in the background: completing thousands of
 * parts takes S3 longer than a client or a proxy waits for an answer (docs/architecture.md, "Files larger than
 * one multipart upload").
 */
const QUICK_ASSEMBLY_PARTS = 2000;
/** Segments' multipart uploads are begun, and completed, this many at once. */
const SEGMENT_CONCURRENCY = 8;
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

/**
 * The upload of a file larger than one multipart upload holds: segment j is the object `<key>.seg/<j>` holding
 * bytes [j·seg, (j+1)·seg) of the file, assembled from its own multipart upload `ids[j]`, whose parts are `part`
 * bytes (part k of segment j: bytes [j·seg + (k-1)·part, …) of the file).
 */
interface SegmentedUpload {
  ids: string[];
  part: number;
  seg: number;
}

type AnyUpload = Upload | SegmentedUpload;

function parseUpload(upload: string | null): AnyUpload | null {
  return upload ? (JSON.parse(upload) as AnyUpload) : null;
}

function isSegmented(u: AnyUpload | null): u is SegmentedUpload {
  return u !== null && Array.isArray((u as SegmentedUpload).ids);
}

/** Extra settings of the S3 store: S3's own limits unless the server has lower ones (or a test lowers them). */
export interface S3StoreLimits {
  /** Parts one multipart upload may have: 10,000 on S3 (Swift's s3api: max_upload_part_num, 1,000 by default). */
  maxParts?: number;
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
 * A file of more parts than one multipart upload may hold (10,000: 48.8 GiB with 5 MiB chunks) is kept as
 * segments, each an object of its own assembled from a multipart upload of its own (`<object>.seg/<j>`, receipt
 * `q:<j>:<part>:<etag>` for a chunk that is a whole part of segment j); downloads read across the segments, so
 * completion copies no byte. The largest file is then MAX_PARTS segments of MAX_PARTS parts.
 * Parts of an unfinished upload cannot be read back, so a file is readable once complete.
 */
export class S3FileStore implements FileStore, MultipartUploads {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly maxParts: number;

  constructor(settings: S3Settings, limits: S3StoreLimits = {}) {
    this.client = makeS3Client(settings);
    this.bucket = settings.bucket;
    this.prefix = settings.prefix;
    this.maxParts = limits.maxParts ?? MAX_PARTS;
  }

  uploadNeeded(size: number, chunkSize: number): boolean {
    return size > partSizeFor(chunkSize);
  }

  maxFileSize(chunkSize: number): number {
    return this.maxParts * this.segmentSize(partSizeFor(chunkSize));
  }

  /** Bytes per segment: as many whole parts as one upload may hold, within S3's largest object. */
  private segmentSize(part: number): number {
    return part * Math.max(1, Math.min(this.maxParts, Math.floor(MAX_OBJECT / part)));
  }

  assemblyIsLong(size: number, upload: string | null): boolean {
    const u = parseUpload(upload);
    if (!u) return false;
    return isSegmented(u) || Math.ceil(size / u.part) > QUICK_ASSEMBLY_PARTS;
  }

  async beginUpload(file: StoredFile, chunkSize: number): Promise<string> {
    const part = partSizeFor(chunkSize);
    const key = this.keyOf(file.transferId, file.uid);
    const seg = this.segmentSize(part);
    if (file.size <= seg) return JSON.stringify({ id: await this.createUpload(key), part } satisfies Upload);
    const count = Math.ceil(file.size / seg);
    const ids: string[] = new Array(count);
    try {
      await inParallel([...ids.keys()], SEGMENT_CONCURRENCY, async (j) => {
        ids[j] = await this.createUpload(segmentKey(key, j));
      });
    } catch (e) {
      await this.abortSegments(key, ids).catch(() => {});
      throw e;
    }
    return JSON.stringify({ ids, part, seg } satisfies SegmentedUpload);
  }

  private async createUpload(key: string): Promise<string> {
    const r = await this.guard(this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key })));
    if (!r.UploadId) throw new StorageDownError('object store: CreateMultipartUpload answered no upload id');
    return r.UploadId;
  }

  async abortUpload(transferId: number, uid: string, upload: string): Promise<void> {
    const key = this.keyOf(transferId, uid);
    const u = parseUpload(upload)!;
    if (isSegmented(u)) await this.abortSegments(key, u.ids);
    else await this.abortOne(key, u.id);
  }

  private async abortSegments(key: string, ids: (string | undefined)[]): Promise<void> {
    await inParallel([...ids.keys()], SEGMENT_CONCURRENCY, async (j) => {
      if (ids[j]) await this.abortOne(segmentKey(key, j), ids[j]);
    });
  }

  private async abortOne(key: string, id: string): Promise<void> {
    try {
      await this.guard(
        this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: id })),
      );
    } catch (e) {
      // Already aborted (NoSuchUpload) or completed (Swift: NoSuchKey): nothing left to abort.
      if (!isNotFound(e)) throw e;
    }
  }

  async writeChunk(
    file: StoredFile,
    offset: number,
    data: Readable | Buffer,
    expected: number,
    upload: string | null,
    exact = false,
    guard?: ChunkGuard,
  ): Promise<WrittenChunk> {
    const base = this.keyOf(file.transferId, file.uid);
    const u = parseUpload(upload);
    const signed = guard?.signed;
    if (guard && exact && gapsOf(guard.keep, offset, offset + expected).length === 0) {
      // Every byte is recorded already, and final: nothing is sent (docs/architecture.md, Signed chunks while they stream).
      const written = await drainBody(data, expected, signed);
      await signed?.verified();
      return { written, crc32: null, receipt: '' };
    }
    if ((exact || expected > GATHER_MAX) && !Buffer.isBuffer(data) && expected > 0)
      return this.streamChunk(file, base, offset, data, expected, u, signed);
    const body = await collectBody(data, expected);
    signed?.see(body);
    await signed?.verified();
    const crc32 = zlib.crc32(body) >>> 0;
    return { written: body.length, crc32, receipt: await this.putChunk(file, base, offset, body.length, body, u) };
  }

  /**
   * A body of announced length, or a large one (a legacy whole-file upload): streamed with that length as its
   * Content-Length, counted and its CRC-32 taken on the way; cut short or running over, the request to the store
   * is aborted and nothing is recorded. The SDK cannot send such a body twice, so a store that fails midway
   * fails the chunk (503), which the client sends again.
   */
  private async streamChunk(
    file: StoredFile,
    base: string,
    offset: number,
    data: Readable,
    expected: number,
    u: AnyUpload | null,
    signed?: SignedBody,
  ): Promise<WrittenChunk> {
    const abort = new AbortController();
    const counted = countedBody(data, expected, abort, signed, REQUEST_TIMEOUT_MS);
    let receipt: string;
    try {
      receipt = await this.putChunk(file, base, offset, expected, counted.stream, u, abort.signal);
    } catch (e) {
      throw counted.failure() ?? e;
    } finally {
      counted.settled();
    }
    return { written: expected, crc32: counted.crc32(), receipt };
  }

  /**
   * Sends a chunk's `length` bytes where they belong: the object itself (the whole file), its multipart upload's
   * part, or else an object staged beside it. Returns the chunk's receipt.
   */
  private async putChunk(
    file: StoredFile,
    base: string,
    offset: number,
    length: number,
    body: Buffer | Readable,
    u: AnyUpload | null,
    abortSignal?: AbortSignal,
  ): Promise<string> {
    const options = sendOptions(body, abortSignal);
    if (offset === 0 && length === file.size) {
      await this.guard(
        this.client.send(
          new PutObjectCommand({ Bucket: this.bucket, Key: base, Body: body, ContentLength: length }),
          options,
        ),
        abortSignal,
      );
      return 'w';
    }
    if (isSegmented(u)) {
      const at = segmentPartOf(u, file.size, offset, length);
      if (at) {
        const r = await this.guard(
          this.client.send(
            new UploadPartCommand({
              Bucket: this.bucket,
              Key: segmentKey(base, at.segment),
              UploadId: u.ids[at.segment],
              PartNumber: at.part,
              Body: body,
              ContentLength: length,
            }),
            options,
          ),
          abortSignal,
        );
        return `q:${at.segment}:${at.part}:${r.ETag}`;
      }
      return this.putStaged(base, offset, length, body, abortSignal);
    }
    const part = u ? partNumberOf(u, file.size, offset, length) : null;
    if (u && part !== null) {
      const r = await this.guard(
        this.client.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: base,
            UploadId: u.id,
            PartNumber: part,
            Body: body,
            ContentLength: length,
          }),
          options,
        ),
        abortSignal,
      );
      return `p:${part}:${r.ETag}`;
    }
    return this.putStaged(base, offset, length, body, abortSignal);
  }

  /** A chunk that is no whole part: an object of its own beside the file's, folded in at completion. */
  private async putStaged(
    base: string,
    offset: number,
    length: number,
    body: Buffer | Readable,
    abortSignal?: AbortSignal,
  ): Promise<string> {
    const suffix = stagedSuffix(offset, offset + length);
    await this.guard(
      this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: base + suffix, Body: body, ContentLength: length }),
        sendOptions(body, abortSignal),
      ),
      abortSignal,
    );
    return `s:${suffix}`;
  }

  async complete(file: StoredFile, pieces: StoredPiece[], upload: string | null): Promise<void> {
    const key = this.keyOf(file.transferId, file.uid);
    const u = parseUpload(upload);
    const whole = pieces.find((p) => p.receipt === 'w' && p.start === 0 && p.end === file.size);
    if (file.size === 0 || whole) {
      if (file.size === 0)
        await this.guard(
          this.client.send(
            new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: Buffer.alloc(0), ContentLength: 0 }),
          ),
        );
      if (upload) await this.abortUpload(file.transferId, file.uid, upload);
    } else if (isSegmented(u)) {
      await this.completeSegments(key, file.size, pieces, u);
    } else if (!(await this.isStored(key, file.size))) {
      // (A completion run again after a crash finds the object there.)
      try {
        if (u) await this.completeMultipart(key, key, file.size, pieces, u);
        else
          await this.guard(
            this.client.send(
              new PutObjectCommand({
                Bucket: this.bucket,
                Key: key,
                Body: this.stagedStream(key, pieces, 0, file.size),
                ContentLength: file.size,
              }),
              LONG,
            ),
          );
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

  /**
   * Each segment assembled from its own upload, in the segment's own coordinates (its parts, and the staged
   * pieces that overlap it); a segment already there (a completion run again) is left as it is.
   */
  private async completeSegments(key: string, size: number, pieces: StoredPiece[], u: SegmentedUpload): Promise<void> {
    await inParallel([...u.ids.keys()], SEGMENT_CONCURRENCY, async (j) => {
      const a = j * u.seg;
      const b = Math.min(a + u.seg, size);
      const target = segmentKey(key, j);
      if (await this.isStored(target, b - a)) return;
      const own = pieces.flatMap((p) => segmentPiece(p, j, a, b));
      try {
        await this.completeMultipart(target, key, b - a, own, { id: u.ids[j], part: u.part });
      } catch (e) {
        if (!(await this.isStored(target, b - a))) throw e;
      }
    });
  }

  /**
   * Completes the upload of object `target` (`size` bytes) from its parts and the staged pieces (objects named
   * after `base`, the file's key; piece positions are in the target's coordinates).
   */
  private async completeMultipart(
    target: string,
    base: string,
    size: number,
    pieces: StoredPiece[],
    u: Upload,
  ): Promise<void> {
    const key = target;
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
          this.client.send(
            new UploadPartCopyCommand({
              Bucket: this.bucket,
              Key: key,
              UploadId: u.id,
              PartNumber: k,
              CopySource: `${this.bucket}/${encodeURIComponent(base + src.piece.receipt.slice(2)).replace(/%2F/g, '/')}`,
              CopySourceRange: `bytes=${from}-${from + (b - a) - 1}`,
            }),
            LONG,
          ),
        );
        etags[k - 1] = r.CopyPartResult!.ETag!;
      } else {
        const r = await this.guard(
          this.client.send(
            new UploadPartCommand({
              Bucket: this.bucket,
              Key: key,
              UploadId: u.id,
              PartNumber: k,
              Body: this.stagedStream(base, pieces, a, b),
              ContentLength: b - a,
            }),
            LONG,
          ),
        );
        etags[k - 1] = r.ETag!;
      }
    });
    await this.guard(
      this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: u.id,
          MultipartUpload: { Parts: etags.map((ETag, i) => ({ PartNumber: i + 1, ETag })) },
        }),
        LONG,
      ),
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
          const r = await self.guard(
            self.client.send(
              new GetObjectCommand({
                Bucket: self.bucket,
                Key: key + s.piece.receipt.slice(2),
                Range: `bytes=${from}-${from + (s.to - s.from) - 1}`,
              }),
            ),
          );
          yield* r.Body as Readable;
        }
      })(),
      { objectMode: false },
    );
  }

  async openRead(transferId: number, uid: string, start: number, end: number): Promise<PositionalReader> {
    const key = this.keyOf(transferId, uid);
    return new S3FileReader(start, end, {
      get: async (k, from, to) => {
        const r = await this.guard(
          this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: k, Range: `bytes=${from}-${to}` })),
        );
        return r.Body as Readable;
      },
      key,
      segmentKey: (j) => segmentKey(key, j),
      // A file kept in segments has no object of its own: the first segment's size is every segment's but the last.
      segmentSize: async () => {
        try {
          const h = await this.guard(
            this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: segmentKey(key, 0) })),
          );
          return h.ContentLength ?? null;
        } catch (e) {
          if (isNotFound(e)) return null;
          throw e;
        }
      },
      isNotFound,
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
      const m = /^(\d+)\/([0-9a-f]{32})(\.staged\/.*|\.seg\/\d+)?$/.exec(o.key.slice(this.prefix.length));
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
    // Bounded by its own deadline, so a probe sent into a stalled connection ends and the next probe opens a new
    // one: /readyz says ready again as soon as the store answers (docs/architecture.md, HTTP surface).
    await this.guard(
      this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: AbortSignal.timeout(CHECK_MS) }),
    );
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
      const r = await this.guard(
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token })),
      );
      for (const o of r.Contents ?? []) if (o.Key) out.push({ key: o.Key, size: o.Size ?? 0 });
      if (!r.IsTruncated || !r.NextContinuationToken) break;
      token = r.NextContinuationToken;
    }
    return out;
  }

  private async deleteKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const r = await this.guard(
        this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        ),
      );
      const failed = (r.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length)
        throw new Error(`deleting ${failed.length} object(s) failed: ${failed[0].Code} ${failed[0].Message ?? ''}`);
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
      if (status === undefined || status >= 500)
        throw new StorageDownError(`object store: ${(e as Error).message}`, { cause: e });
      if ((e as Error).name === 'InvalidArgument' && /part/i.test((e as Error).message)) {
        // Swift's s3api allows 1,000 parts per upload unless raised: say what to change, not just "invalid".
        throw new Error(
          `the object store refused a multipart part (${(e as Error).message}): ferry counts on 10,000 parts per upload (Swift's s3api: raise max_upload_part_num and max_manifest_segments)`,
          { cause: e },
        );
      }
      throw e;
    }
  }
}

/** A ready check's deadline: /readyz gives each part 2 s, and a late answer is not waited for beyond this. */
const CHECK_MS = 3000;
/** Requests that make the store work in proportion to a file (s3-client.ts). */
const LONG = { requestTimeout: LONG_REQUEST_TIMEOUT_MS };

/**
 * A chunk streamed from its client is sent without the client's request deadline (the client may be slow, and
 * the request lasts as long as its body): countedBody's watchdog aborts it when the store stops taking bytes or
 * does not answer (0: no deadline of the SDK's). A body held in memory keeps the deadline.
 */
function sendOptions(
  body: Buffer | Readable,
  abortSignal?: AbortSignal,
): { abortSignal?: AbortSignal; requestTimeout?: number } | undefined {
  if (Buffer.isBuffer(body)) return abortSignal ? { abortSignal } : undefined;
  return { abortSignal, requestTimeout: 0 };
}

/** The part number a chunk is, or null when it is not a whole part (then it is staged). */
function partNumberOf(u: Upload, size: number, offset: number, length: number): number | null {
  if (length === 0 || offset % u.part !== 0) return null;
  if (length !== u.part && offset + length !== size) return null;
  return offset / u.part + 1;
}

function segmentKey(key: string, j: number): string {
  return `${key}.seg/${j}`;
}

/** Which segment, and which part of its upload, a chunk is; null when it is not a whole part (then it is staged). */
function segmentPartOf(
  u: SegmentedUpload,
  size: number,
  offset: number,
  length: number,
): { segment: number; part: number } | null {
  if (length === 0) return null;
  const segment = Math.floor(offset / u.seg);
  const local = offset - segment * u.seg;
  const segEnd = Math.min((segment + 1) * u.seg, size);
  if (local % u.part !== 0 || offset + length > segEnd) return null;
  if (length !== u.part && offset + length !== segEnd) return null;
  return { segment, part: local / u.part + 1 };
}

/**
 * A recorded piece as segment j (bytes [a, b) of the file) sees it: its own parts (`q:j:k:etag` → `p:k:etag`)
 * and the staged pieces that overlap it, moved into the segment's coordinates; none otherwise.
 */
function segmentPiece(p: StoredPiece, j: number, a: number, b: number): StoredPiece[] {
  if (p.receipt.startsWith(`q:${j}:`))
    return [{ ...p, start: p.start - a, end: p.end - a, receipt: `p:${p.receipt.slice(`q:${j}:`.length)}` }];
  if (p.receipt.startsWith('s:') && p.start < b && p.end > a) return [{ ...p, start: p.start - a, end: p.end - a }];
  return [];
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
  return (
    x?.$metadata?.httpStatusCode === 404 ||
    x?.name === 'NoSuchUpload' ||
    x?.name === 'NoSuchKey' ||
    x?.name === 'NotFound'
  );
}

async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}
