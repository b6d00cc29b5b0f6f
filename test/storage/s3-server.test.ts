import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  GetObjectCommandInput,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { S3Server, s3Client, startS3 } from '../helpers/system/s3';

/*
 * What the S3 adapter relies on, checked against a real S3-compatible server (Swift 2.30's s3api, from
 * Debian's packages; test/helpers/system/s3.ts). Where Swift differs from AWS S3, the tests do what a client must
 * do on both:
 *
 * - DeleteObjects needs a Content-MD5 header on Swift (S3 required one too until 2025); the SDK now sends a CRC32
 *   header instead, even with requestChecksumCalculation WHEN_REQUIRED. s3Client() adds the MD5 in a middleware.
 * - ListMultipartUploads pages wrongly on Swift: see allUploads() below.
 * - ListParts keeps answering for a completed upload (Swift finds the upload id on the finished object), where S3
 *   says NoSuchUpload: "are its parts listable" does not tell whether an upload is still open.
 * - Aborting a completed upload answers 404 NoSuchKey (not NoSuchUpload) and keeps the object: take any 404 from
 *   an abort as "nothing left to abort".
 * - Swift keeps the parts in a hidden container "<bucket>+segments"; deleting a completed object deletes its parts.
 *   An abort deletes the upload's marker first and its parts after, so an abort cut short leaves parts that no S3
 *   call lists any more: only the store's operator can find them.
 * - Bucket lifecycle rules are not supported (PUT ?lifecycle is taken for a bucket creation and refused as
 *   MalformedXML): on Swift, aborting unfinished uploads is the purge's job alone.
 * - Multipart limits are server settings: s3api allows 1,000 parts and its SLO 1,000 segments unless raised
 *   (max_upload_part_num, max_manifest_segments; s3.ts raises both to S3's 10,000). On such a server a part number
 *   above 1,000 is refused with InvalidArgument: the adapter must say so clearly.
 */

const MiB = 1024 * 1024;
let server: S3Server;
let s3: S3Client;
let Bucket: string;

test.before(async () => {
  server = await startS3();
  s3 = s3Client(server);
  Bucket = server.bucket;
});

test.after(async () => {
  s3?.destroy();
  await server?.stop();
});

const random = (n: number) => crypto.randomBytes(n);

async function put(Key: string, body: Buffer): Promise<string> {
  const r = await s3.send(new PutObjectCommand({ Bucket, Key, Body: body }));
  return r.ETag!;
}

async function get(Key: string, extra: Partial<GetObjectCommandInput> = {}) {
  const r = await s3.send(new GetObjectCommand({ Bucket, Key, ...extra }));
  const body = Buffer.from(await r.Body!.transformToByteArray());
  return {
    body,
    status: r.$metadata.httpStatusCode,
    contentRange: r.ContentRange,
    etag: r.ETag,
    length: r.ContentLength,
  };
}

/** CompleteMultipartUpload of `Key` with these parts, in the order given. */
function completeUpload(Key: string, UploadId: string | undefined, Parts: { PartNumber: number; ETag?: string }[]) {
  return s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts } }));
}

/** The S3 error a call fails with (its name and HTTP status), or a failed assertion when it succeeds. */
async function failure(p: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (e === undefined) assert.unreachable('expected the call to fail');
  if (!(e instanceof S3ServiceException)) throw e;
  return { name: e.name, status: e.$metadata.httpStatusCode };
}

const md5 = (b: Buffer) => crypto.createHash('md5').update(b).digest('hex');

test('the server from startS3 accepts a new bucket and reports it', async () => {
  await s3.send(new CreateBucketCommand({ Bucket: 'ferry-another' }));
  const head = await s3.send(new HeadBucketCommand({ Bucket: 'ferry-another' }));
  assert.is(head.$metadata.httpStatusCode, 200);
  assert.is((await failure(s3.send(new HeadBucketCommand({ Bucket: 'ferry-missing' })))).status, 404);
  // The same test process gets the same server.
  assert.is((await startS3()).endpoint, server.endpoint);
});

test('multipart: parts sent out of order, listed page by page, completed into one object', async () => {
  const Key = 'multipart/out-of-order';
  const parts = [random(5 * MiB), random(5 * MiB), random(5 * MiB + 3), random(777_777)];
  const whole = Buffer.concat(parts);
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
  assert.ok(UploadId);
  const etags: string[] = [];
  // A part sent again (a chunk resent after its node died mid-request) replaces what was sent before.
  await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 2, Body: random(5 * MiB + 1) }));
  for (const i of [3, 0, 2, 1]) {
    const r = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: i + 1, Body: parts[i] }));
    // A part's ETag is the MD5 of its bytes, as on S3.
    assert.is(r.ETag, `"${md5(parts[i])}"`);
    etags[i] = r.ETag!;
  }

  // Two pages of two parts, in part-number order whatever the upload order was.
  const page1 = await s3.send(new ListPartsCommand({ Bucket, Key, UploadId, MaxParts: 2 }));
  assert.is(page1.IsTruncated, true);
  assert.equal(
    page1.Parts!.map((p) => [p.PartNumber, p.Size, p.ETag]),
    [
      [1, 5 * MiB, etags[0]],
      [2, 5 * MiB, etags[1]],
    ],
  );
  const page2 = await s3.send(
    new ListPartsCommand({ Bucket, Key, UploadId, MaxParts: 2, PartNumberMarker: page1.NextPartNumberMarker }),
  );
  assert.is(page2.IsTruncated, false);
  assert.equal(
    page2.Parts!.map((p) => [p.PartNumber, p.Size]),
    [
      [3, 5 * MiB + 3],
      [4, 777_777],
    ],
  );

  // Parts of an unfinished upload are not an object yet.
  assert.is((await failure(s3.send(new HeadObjectCommand({ Bucket, Key })))).status, 404);

  const done = await completeUpload(
    Key,
    UploadId,
    etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })),
  );
  // The S3 multipart ETag: the MD5 of the parts' binary MD5s, and the number of parts.
  const expected = crypto
    .createHash('md5')
    .update(Buffer.concat(parts.map((p) => crypto.createHash('md5').update(p).digest())))
    .digest('hex');
  assert.is(done.ETag, `"${expected}-4"`);
  const back = await get(Key);
  assert.is(back.length, whole.length);
  assert.ok(back.body.equals(whole), 'the completed object is the parts in part-number order');
  assert.is(back.etag, done.ETag);

  // A node that died after sending Complete can send it again: the same answer, the same object.
  const again = await completeUpload(
    Key,
    UploadId,
    etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })),
  );
  assert.is(again.ETag, done.ETag);
  // Aborting a completed upload (a purge racing a completion) is refused with a 404 and leaves the object whole.
  assert.is((await failure(s3.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })))).status, 404);
  assert.ok((await get(Key)).body.equals(whole));
  // The upload is no longer listed as unfinished. (ListParts is no such test: Swift still lists the parts of a
  // completed upload, where S3 answers NoSuchUpload.)
  const open = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: Key }));
  assert.is(open.Uploads, undefined);
});

test('multipart: S3 limits hold (5 MiB minimum but for the last part, part numbers up to 10,000, ascending order)', async () => {
  const Key = 'multipart/limits';
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
  const small = random(1 * MiB);
  const tail = random(10);
  const p1 = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: small }));
  const p10000 = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 10000, Body: tail }));
  const over = await failure(s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 10001, Body: tail })));
  assert.equal(over, { name: 'InvalidArgument', status: 400 });

  // Listed out of order, the parts are refused (a client must sort them).
  const unsorted = failure(
    completeUpload(Key, UploadId, [
      { PartNumber: 10000, ETag: p10000.ETag },
      { PartNumber: 1, ETag: p1.ETag },
    ]),
  );
  assert.equal(await unsorted, { name: 'InvalidPartOrder', status: 400 });
  // A part below 5 MiB that is not the last one is refused at completion, and the upload stays open.
  const tooSmall = failure(
    completeUpload(Key, UploadId, [
      { PartNumber: 1, ETag: p1.ETag },
      { PartNumber: 10000, ETag: p10000.ETag },
    ]),
  );
  assert.equal(await tooSmall, { name: 'EntityTooSmall', status: 400 });
  const left = await s3.send(new ListPartsCommand({ Bucket, Key, UploadId }));
  assert.equal(
    left.Parts!.map((p) => p.PartNumber),
    [1, 10000],
  );
  // A single part below 5 MiB is the last part, and fine.
  await completeUpload(Key, UploadId, [{ PartNumber: 1, ETag: p1.ETag }]);
  assert.ok((await get(Key)).body.equals(small));
});

test('UploadPartCopy folds byte ranges of other objects (plain and multipart) into a new upload', async () => {
  const staged = random(6 * MiB);
  await put('copy/staged', staged);
  // A multipart object as a source too: the adapter may copy out of a completed file.
  const mpParts = [random(5 * MiB), random(2 * MiB)];
  const mp = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'copy/multipart-source' }));
  const mpEtags = [];
  for (const [i, Body] of mpParts.entries()) {
    mpEtags.push(
      (
        await s3.send(
          new UploadPartCommand({
            Bucket,
            Key: 'copy/multipart-source',
            UploadId: mp.UploadId,
            PartNumber: i + 1,
            Body,
          }),
        )
      ).ETag,
    );
  }
  await completeUpload(
    'copy/multipart-source',
    mp.UploadId,
    mpEtags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })),
  );
  const mpWhole = Buffer.concat(mpParts);

  const Key = 'copy/target';
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
  const own = random(5 * MiB);
  /** Part `part` of the target copied from bytes `from`–`to` (inclusive) of another object: its ETag. */
  const copied = async (part: number, source: string, from: number, to: number) =>
    (
      await s3.send(
        new UploadPartCopyCommand({
          Bucket,
          Key,
          UploadId,
          PartNumber: part,
          CopySource: `${Bucket}/${source}`,
          CopySourceRange: `bytes=${from}-${to}`,
        }),
      )
    ).CopyPartResult!.ETag!;
  const pieces: Array<{ part: number; bytes: Buffer; send: () => Promise<string> }> = [
    {
      part: 2,
      bytes: staged.subarray(1000, 1000 + 5 * MiB),
      send: () => copied(2, 'copy/staged', 1000, 1000 + 5 * MiB - 1),
    },
    {
      part: 1,
      bytes: own,
      send: async () =>
        (await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: own }))).ETag!,
    },
    {
      // A range across the source's part boundary.
      part: 3,
      bytes: mpWhole.subarray(5 * MiB - 100, 5 * MiB + 4900),
      send: () => copied(3, 'copy/multipart-source', 5 * MiB - 100, 5 * MiB + 4899),
    },
  ];
  const etags = new Map<number, string>();
  for (const p of pieces) etags.set(p.part, await p.send());
  // A copied part's ETag is the MD5 of the copied bytes, like an uploaded part's.
  for (const p of pieces) assert.is(etags.get(p.part), `"${md5(p.bytes)}"`, `part ${p.part}`);
  const listed = await s3.send(new ListPartsCommand({ Bucket, Key, UploadId }));
  assert.equal(
    listed.Parts!.map((p) => [p.PartNumber, p.Size]),
    [
      [1, 5 * MiB],
      [2, 5 * MiB],
      [3, 5000],
    ],
  );
  await completeUpload(
    Key,
    UploadId,
    [1, 2, 3].map((n) => ({ PartNumber: n, ETag: etags.get(n) })),
  );
  const expected = Buffer.concat(pieces.sort((a, b) => a.part - b.part).map((p) => p.bytes));
  assert.ok((await get(Key)).body.equals(expected), 'own bytes, then the staged range, then the range across parts');
});

/**
 * Every unfinished upload under a prefix, page by page, as a purge must list them on Swift: its s3api (2.30) leaves
 * NextKeyMarker and NextUploadIdMarker empty when a page holds exactly one upload, and reports IsTruncated whenever a
 * page is full, even when nothing follows. So the next page starts after the last upload listed, and an empty
 * page ends the listing. On S3 the same loop works unchanged.
 */
async function allUploads(Prefix: string, MaxUploads: number): Promise<Array<{ key: string; id: string }>> {
  const out: Array<{ key: string; id: string }> = [];
  let KeyMarker: string | undefined;
  let UploadIdMarker: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix, MaxUploads, KeyMarker, UploadIdMarker }));
    const uploads = r.Uploads ?? [];
    out.push(...uploads.map((u) => ({ key: u.Key!, id: u.UploadId! })));
    if (!r.IsTruncated || uploads.length === 0) return out;
    const last = uploads[uploads.length - 1];
    KeyMarker = r.NextKeyMarker || last.Key;
    UploadIdMarker = r.NextUploadIdMarker || last.UploadId;
  }
  throw new Error('more than 100 pages of uploads');
}

test('AbortMultipartUpload ends an upload, ListMultipartUploads shows the unfinished ones', async () => {
  const a = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'abort/a' }));
  const b = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'abort/b' }));
  const c = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'abort/c' }));
  await s3.send(
    new UploadPartCommand({ Bucket, Key: 'abort/a', UploadId: a.UploadId, PartNumber: 1, Body: random(1000) }),
  );
  const expected = [
    { key: 'abort/a', id: a.UploadId },
    { key: 'abort/b', id: b.UploadId },
    { key: 'abort/c', id: c.UploadId },
  ];
  assert.equal(await allUploads('abort/', 1000), expected);
  assert.equal(await allUploads('abort/', 1), expected, 'one per page');
  assert.equal(await allUploads('abort/', 2), expected, 'two per page');

  await s3.send(new AbortMultipartUploadCommand({ Bucket, Key: 'abort/a', UploadId: a.UploadId }));
  assert.equal(await allUploads('abort/', 1000), expected.slice(1));
  assert.is(
    (await failure(s3.send(new ListPartsCommand({ Bucket, Key: 'abort/a', UploadId: a.UploadId })))).name,
    'NoSuchUpload',
  );
  // Aborting again answers NoSuchUpload (404), as on S3: an idempotent purge takes a 404 as done.
  assert.equal(
    await failure(s3.send(new AbortMultipartUploadCommand({ Bucket, Key: 'abort/a', UploadId: a.UploadId }))),
    { name: 'NoSuchUpload', status: 404 },
  );
  for (const u of [b, c]) await s3.send(new AbortMultipartUploadCommand({ Bucket, Key: u.Key, UploadId: u.UploadId }));
  assert.equal(await allUploads('abort/', 1000), []);
});

test('GetObject: ranges (closed, open-ended, suffix) on plain and multipart objects, If-Match, and HeadObject', async () => {
  const plain = random(3 * MiB + 17);
  const etag = await put('range/plain', plain);
  assert.is(etag, `"${md5(plain)}"`);
  const parts = [random(5 * MiB), random(5 * MiB), random(123)];
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'range/multipart' }));
  const etags = [];
  for (const [i, Body] of parts.entries()) {
    etags.push(
      (await s3.send(new UploadPartCommand({ Bucket, Key: 'range/multipart', UploadId, PartNumber: i + 1, Body })))
        .ETag,
    );
  }
  const mpEtag = (
    await completeUpload(
      'range/multipart',
      UploadId,
      etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })),
    )
  ).ETag!;
  const multipart = Buffer.concat(parts);

  // The closed range crosses a boundary: between the multipart object's first two parts.
  for (const [Key, whole, ETag, start] of [
    ['range/plain', plain, etag, MiB - 10],
    ['range/multipart', multipart, mpEtag, 5 * MiB - 10],
  ] as const) {
    const n = whole.length;
    const end = start + 19;
    const closed = await get(Key, { Range: `bytes=${start}-${end}` });
    assert.is(closed.status, 206, Key);
    assert.is(closed.contentRange, `bytes ${start}-${end}/${n}`, Key);
    assert.ok(closed.body.equals(whole.subarray(start, end + 1)), `${Key}: closed range`);

    const open = await get(Key, { Range: `bytes=${n - 1000}-` });
    assert.is(open.contentRange, `bytes ${n - 1000}-${n - 1}/${n}`, Key);
    assert.ok(open.body.equals(whole.subarray(n - 1000)), `${Key}: open-ended range`);

    const suffix = await get(Key, { Range: 'bytes=-300' });
    assert.is(suffix.status, 206, Key);
    assert.is(suffix.contentRange, `bytes ${n - 300}-${n - 1}/${n}`, Key);
    assert.ok(suffix.body.equals(whole.subarray(n - 300)), `${Key}: suffix range`);

    // If-Match with the object's ETag serves it; another ETag is a 412, so a reader never mixes two versions.
    const matched = await get(Key, { IfMatch: ETag, Range: 'bytes=0-9' });
    assert.ok(matched.body.equals(whole.subarray(0, 10)), `${Key}: If-Match`);
    assert.equal(
      await failure(get(Key, { IfMatch: '"0123456789abcdef0123456789abcdef"' })),
      { name: 'PreconditionFailed', status: 412 },
      Key,
    );
    assert.is((await failure(get(Key, { Range: `bytes=${n}-${n + 10}` }))).status, 416, `${Key}: a range past the end`);

    const head = await s3.send(new HeadObjectCommand({ Bucket, Key }));
    assert.is(head.ContentLength, n, Key);
    assert.is(head.ETag, ETag, Key);
    assert.ok(head.LastModified instanceof Date, Key);
  }
  // An empty file is an empty object.
  await put('range/empty', Buffer.alloc(0));
  assert.is((await s3.send(new HeadObjectCommand({ Bucket, Key: 'range/empty' }))).ContentLength, 0);
  assert.is((await get('range/empty')).body.length, 0);
  assert.equal(await failure(s3.send(new HeadObjectCommand({ Bucket, Key: 'range/none' }))), {
    name: 'NotFound',
    status: 404,
  });
  assert.is((await failure(get('range/none'))).name, 'NoSuchKey');
});

test('ListObjectsV2 pages through a prefix; DeleteObjects removes many at once', async () => {
  const keys = ['list/a', 'list/b', 'list/c/1', 'list/c/2', 'list/d e+f', 'listing-not-under-prefix'];
  for (const k of keys) await put(k, Buffer.from(k));
  const seen: Array<[string, number]> = [];
  let ContinuationToken: string | undefined;
  let pages = 0;
  for (let i = 0; i < 10; i++) {
    const page = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'list/', MaxKeys: 2, ContinuationToken }));
    pages += 1;
    assert.is(page.KeyCount, page.Contents?.length ?? 0);
    seen.push(...page.Contents!.map((o) => [o.Key!, o.Size!] as [string, number]));
    if (!page.IsTruncated) break;
    ContinuationToken = page.NextContinuationToken;
    assert.ok(ContinuationToken);
  }
  assert.is(pages, 3);
  assert.equal(
    seen,
    keys.filter((k) => k.startsWith('list/')).map((k) => [k, Buffer.byteLength(k)]),
  );

  const r = await s3.send(
    new DeleteObjectsCommand({
      Bucket,
      Delete: { Objects: [...keys, 'list/never-existed', 'range/multipart'].map((Key) => ({ Key })), Quiet: false },
    }),
  );
  // S3 reports a missing key as deleted: deleting is idempotent.
  assert.equal((r.Deleted ?? []).map((d) => d.Key).sort(), [...keys, 'list/never-existed', 'range/multipart'].sort());
  assert.is(r.Errors, undefined);
  const left = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'list' }));
  assert.is(left.KeyCount, 0);
  assert.is((await failure(get('range/multipart'))).name, 'NoSuchKey');
});

test.run();
