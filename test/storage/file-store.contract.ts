import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import {
  hasMultipartUploads,
  hasUploadHashing,
  type FileStore,
  type StoredFile,
  type StoredPiece,
} from '../../src/domain/ports';
import { combinedCrc32 } from '../../src/domain/pieces';

/*
 * What every FileStore must do, run against each adapter by a runner file of its own (fs-store.test.ts,
 * s3-store.test.ts). The test plays the domain's part: it keeps the pieces the store reports, begins the
 * store's upload when it has one, and hands both back at completion, as src/domain/uploads.ts does.
 */
const MiB = 1024 * 1024;
const CHUNK = 5 * MiB;

export function fileStoreContract(
  name: string,
  open: () => Promise<{ store: FileStore; close(): Promise<void> }>,
): void {
  let store: FileStore;
  let close: () => Promise<void>;
  let nextTransfer = 1000 + Math.floor(Math.random() * 1000) * 1000;

  test.before(async () => {
    ({ store, close } = await open());
  });
  test.after(async () => {
    await close?.();
  });

  /** A chunk's CRC-32 is right, or absent when the store hashes whole files itself (UploadHashing). */
  function chunkCrc(crc: number | null, data: Buffer) {
    if (crc === null)
      assert.ok(hasUploadHashing(store), 'only a store that hashes the file may leave out a chunk CRC-32');
    else assert.is(crc, zlib.crc32(data) >>> 0, 'CRC-32 of the chunk as it went through');
  }

  /** The file's CRC-32 as completion finds it (src/domain/uploads.ts). */
  async function fileCrc(file: StoredFile, pieces: StoredPiece[]): Promise<number | null> {
    if (hasUploadHashing(store)) return (await store.digest(file.transferId, file.uid, file.size)).crc32;
    return combinedCrc32(pieces, file.size);
  }

  /** A file being uploaded the way the domain does it. */
  async function upload(size: number) {
    const file: StoredFile = { transferId: nextTransfer++, uid: crypto.randomBytes(16).toString('hex'), size };
    const pieces: StoredPiece[] = [];
    const u =
      hasMultipartUploads(store) && store.uploadNeeded(size, CHUNK) ? await store.beginUpload(file, CHUNK) : null;
    return {
      file,
      pieces,
      /** `stream`: sent as a stream whose length the request announced (exact), or did not. */
      async write(offset: number, data: Buffer, stream: 'announced' | 'unannounced' | null = null) {
        const body = stream ? Readable.from([data.subarray(0, 1000), data.subarray(1000)]) : data;
        const w = await store.writeChunk(file, offset, body, data.length, u, stream === 'announced');
        assert.is(w.written, data.length);
        chunkCrc(w.crc32, data);
        const piece = { start: offset, end: offset + data.length, crc32: w.crc32, receipt: w.receipt };
        // As the repository does: a piece sent again replaces the ones lying inside it.
        for (let i = pieces.length - 1; i >= 0; i--)
          if (pieces[i].start >= piece.start && pieces[i].end <= piece.end) pieces.splice(i, 1);
        pieces.push(piece);
      },
      complete: () => store.complete(file, pieces, u),
      upload: u,
    };
  }

  async function read(file: StoredFile, start: number, end: number): Promise<Buffer> {
    const reader = await store.openRead(file.transferId, file.uid, start, end);
    const out: Buffer[] = [];
    const buf = Buffer.alloc(MiB);
    try {
      for (let pos = start; pos <= end; ) {
        const n = await reader.read(buf, Math.min(MiB, end - pos + 1), pos);
        assert.ok(n > 0, `read at ${pos} of ${start}-${end} gave nothing`);
        out.push(Buffer.from(buf.subarray(0, n)));
        pos += n;
      }
    } finally {
      await reader.close();
    }
    return Buffer.concat(out);
  }

  test(`${name}: aligned chunks out of order, from buffers and streams; ranged reads (suffix too) give the file's bytes`, async () => {
    const data = crypto.randomBytes(12 * MiB + 12345);
    const up = await upload(data.length);
    await up.write(2 * CHUNK, data.subarray(2 * CHUNK), 'announced');
    await up.write(0, data.subarray(0, CHUNK), 'unannounced');
    await up.write(CHUNK, data.subarray(CHUNK, 2 * CHUNK));
    await up.complete();
    assert.ok((await read(up.file, 0, data.length - 1)).equals(data), 'whole file');
    assert.ok(
      (await read(up.file, CHUNK - 10, CHUNK + 10)).equals(data.subarray(CHUNK - 10, CHUNK + 11)),
      'across a chunk boundary',
    );
    assert.ok(
      (await read(up.file, data.length - 100, data.length - 1)).equals(data.subarray(-100)),
      'the last 100 bytes',
    );
    assert.is(
      await fileCrc(up.file, up.pieces),
      zlib.crc32(data) >>> 0,
      'the file CRC-32 from the chunks, or from the store that hashed it',
    );
  });

  test(`${name}: stray chunks (unaligned, odd sizes) and one sent again with another size make the file`, async () => {
    const data = crypto.randomBytes(11 * MiB + 7);
    const up = await upload(data.length);
    const cuts = [0, 3 * MiB, 8 * MiB + 1, data.length];
    for (let i = cuts.length - 2; i >= 0; i--) await up.write(cuts[i], data.subarray(cuts[i], cuts[i + 1]));
    // Resent over part of two earlier pieces, with another size.
    await up.write(2 * MiB, data.subarray(2 * MiB, 4 * MiB));
    await up.complete();
    assert.ok((await read(up.file, 0, data.length - 1)).equals(data));
    assert.ok((await read(up.file, 5 * MiB - 3, 10 * MiB + 3)).equals(data.subarray(5 * MiB - 3, 10 * MiB + 4)));
    const listed = (await store.list()).find((f) => f.transferId === up.file.transferId && f.uid === up.file.uid);
    assert.is(listed?.size, data.length, 'staged pieces are gone once the file is complete');
  });

  test(`${name}: an aligned chunk sent again replaces the first one; a small file in one chunk; a 0-byte file`, async () => {
    const data = crypto.randomBytes(6 * MiB);
    const up = await upload(data.length);
    await up.write(0, crypto.randomBytes(CHUNK));
    await up.write(CHUNK, data.subarray(CHUNK));
    await up.write(0, data.subarray(0, CHUNK));
    await up.complete();
    assert.ok((await read(up.file, 0, data.length - 1)).equals(data));

    const small = crypto.randomBytes(1000);
    const one = await upload(small.length);
    await one.write(0, small);
    await one.complete();
    assert.ok((await read(one.file, 10, 999)).equals(small.subarray(10)));

    const empty = await upload(0);
    await empty.complete();
    assert.equal(
      (await store.list()).filter((f) => f.transferId === empty.file.transferId),
      [{ transferId: empty.file.transferId, uid: empty.file.uid, size: 0 }],
    );
  });

  test(`${name}: completing again finds the file done; list, usedBytes and deletion (twice is fine)`, async () => {
    const data = crypto.randomBytes(2 * MiB);
    const up = await upload(data.length);
    await up.write(MiB, data.subarray(MiB));
    await up.write(0, data.subarray(0, MiB));
    await up.complete();
    await up.complete();
    assert.ok((await read(up.file, 0, data.length - 1)).equals(data));
    const t = up.file.transferId;
    assert.ok((await store.list()).some((f) => f.transferId === t && f.uid === up.file.uid && f.size === data.length));
    assert.ok((await store.transferDirs()).includes(t));
    assert.ok((await store.usedBytes()) >= data.length);
    await store.deleteFile(t, up.file.uid);
    await store.deleteFile(t, up.file.uid);
    assert.not.ok((await store.list()).some((f) => f.transferId === t));
    await store.deleteTransfer(t);
    await store.deleteTransfer(t);
    await store.check();
  });

  test(`${name}: a body past what was announced is refused with EOVERFLOW_CHUNK, one cut short with ECONNRESET, small or streamed large, of announced length or not`, async () => {
    for (const [size, exact] of [
      [100_000, false],
      [100_000, true],
      [70 * MiB, false],
      [6 * MiB, true],
    ] as const) {
      const file: StoredFile = { transferId: nextTransfer++, uid: crypto.randomBytes(16).toString('hex'), size };
      const over = await store
        .writeChunk(
          file,
          0,
          Readable.from([Buffer.alloc(size / 2), Buffer.alloc(size / 2), Buffer.alloc(10)]),
          size,
          null,
          exact,
        )
        .catch((e) => e);
      assert.is(over.code, 'EOVERFLOW_CHUNK', `${size}: ${over.message}`);
      const cut = new Readable({ read() {} });
      cut.push(Buffer.alloc(1000));
      setTimeout(() => cut.destroy(new Error('aborted')), 20);
      const short = await store.writeChunk(file, 0, cut, size, null, exact).catch((e) => e);
      assert.is(short.code, 'ECONNRESET', `${size}: ${short.message}`);
    }
  });

  test(`${name}: a whole file of 70 MiB in one streamed body (a legacy upload) is stored and read back`, async () => {
    const data = crypto.randomBytes(70 * MiB);
    const up = await upload(data.length);
    const parts = Array.from({ length: 70 }, (_, i) => data.subarray(i * MiB, (i + 1) * MiB));
    const w = await store.writeChunk(up.file, 0, Readable.from(parts), data.length, null);
    assert.is(w.written, data.length);
    chunkCrc(w.crc32, data);
    up.pieces.push({ start: 0, end: data.length, crc32: w.crc32, receipt: w.receipt });
    await store.complete(up.file, up.pieces, null);
    assert.ok((await read(up.file, 0, data.length - 1)).equals(data));
    await store.deleteTransfer(up.file.transferId);
  });

  test(`${name}: a file of more parts than one upload may hold (the store's part limit, lowered by its test) is stored, read across its segments, listed and deleted`, async () => {
    // Nine chunks; the S3 store's test allows 3 parts per upload, so this is 3 segments of 3 parts.
    const data = crypto.randomBytes(8 * CHUNK + 3 * MiB + 5);
    assert.ok(
      !hasMultipartUploads(store) || store.maxFileSize(CHUNK) >= data.length,
      'the store takes a file of more parts than its limit',
    );
    const up = await upload(data.length);
    if (hasMultipartUploads(store))
      assert.ok(store.assemblyIsLong(data.length, up.upload), 'segments are assembled in the background');
    const chunk = (i: number) => data.subarray(i * CHUNK, Math.min((i + 1) * CHUNK, data.length));
    for (const i of [8, 3, 0, 5, 1, 7, 2, 6]) await up.write(i * CHUNK, chunk(i), i % 2 ? 'announced' : null);
    // Chunk 4 in two stray pieces; one piece across the first segments' boundary, sent again with another size.
    await up.write(4 * CHUNK, data.subarray(4 * CHUNK, 4 * CHUNK + 2 * MiB + 1));
    await up.write(4 * CHUNK + 2 * MiB + 1, data.subarray(4 * CHUNK + 2 * MiB + 1, 5 * CHUNK), 'unannounced');
    await up.write(14 * MiB, data.subarray(14 * MiB, 16 * MiB));
    await up.complete();
    await up.complete();
    assert.ok((await read(up.file, 0, data.length - 1)).equals(data), 'whole file');
    for (const at of [3 * CHUNK, 6 * CHUNK])
      assert.ok((await read(up.file, at - 10, at + 10)).equals(data.subarray(at - 10, at + 11)), `across ${at}`);
    assert.ok(
      (await read(up.file, data.length - 100, data.length - 1)).equals(data.subarray(-100)),
      'the last 100 bytes',
    );
    assert.is(await fileCrc(up.file, up.pieces), zlib.crc32(data) >>> 0, 'the file CRC-32');
    const listed = (await store.list()).find((f) => f.transferId === up.file.transferId && f.uid === up.file.uid);
    assert.is(listed?.size, data.length, 'listed with its size, nothing staged left over');
    await store.deleteFile(up.file.transferId, up.file.uid);
    assert.not.ok(
      (await store.list()).some((f) => f.transferId === up.file.transferId && f.uid === up.file.uid),
      'deleted whole',
    );
  });

  test(`${name}: addresses that are not a transfer id and a 32-hex uid are refused`, async () => {
    for (const [t, u] of [
      [1, '../../etc/passwd'],
      [1, 'ABCDEF'],
      [0, 'a'.repeat(32)],
      [1.5, 'a'.repeat(32)],
    ] as [number, string][]) {
      const refused = async (p: () => Promise<unknown>) =>
        p().then(
          () => false,
          () => true,
        );
      assert.ok(
        await refused(() => store.writeChunk({ transferId: t, uid: u, size: 1 }, 0, Buffer.alloc(1), 1, null)),
        `write ${t}/${u}`,
      );
      assert.ok(await refused(() => store.deleteFile(t, u)), `delete ${t}/${u}`);
    }
  });

  test.run();
}
