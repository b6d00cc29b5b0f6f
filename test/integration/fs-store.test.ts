import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { FsFileStore } from '../../src/storage/fs-store';
import { patternBytes, sha256 } from '../helpers/upload-client';

// The filesystem FileStore: data_dir/files/<transfer id>/<file uid>, positional writes, ranges, deletion,
// the listing for orphan scans, and its cache of open descriptors.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-store-'));
const store = new FsFileStore(root);
test.after(async () => {
  await store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const uid = () => crypto.randomBytes(16).toString('hex');

test('chunks out of order, from buffers and streams, land at their offsets in a file of the final size', async () => {
  const u = uid();
  const data = patternBytes('store', 300_000);
  assert.is(await store.writeAt(1, u, data.length, 200_000, data.subarray(200_000), 100_000), 100_000);
  assert.is(fs.statSync(path.join(root, '1', u)).size, data.length, 'created at its full size');
  assert.is(
    await store.writeAt(
      1,
      u,
      data.length,
      0,
      Readable.from([data.subarray(0, 50_000), data.subarray(50_000, 200_000)]),
      200_000,
    ),
    200_000,
  );
  await store.finish(1, u, data.length);
  assert.ok(fs.readFileSync(path.join(root, '1', u)).equals(data));
  const reader = await store.openRead(1, u);
  const part = Buffer.alloc(1000);
  assert.is(await reader.read(part, 1000, 1000), 1000);
  await reader.close();
  assert.ok(part.equals(data.subarray(1000, 2000)), 'inclusive range');
  const d = await store.digest(1, u, data.length);
  assert.is(d.sha256, sha256(data));
});

test('a stream longer than expected is refused with EOVERFLOW_CHUNK', async () => {
  const u = uid();
  const err = await store
    .writeAt(2, u, 100, 0, Readable.from([Buffer.alloc(60), Buffer.alloc(60)]), 100)
    .catch((e) => e);
  assert.is(err.code, 'EOVERFLOW_CHUNK');
});

test('a 0-byte File exists once finished; files and transfers are deleted; list and usedBytes see what is on disk', async () => {
  const empty = uid();
  await store.finish(3, empty, 0);
  const other = uid();
  await store.writeAt(3, other, 10, 0, Buffer.alloc(10, 1), 10);
  const listed = (await store.list()).filter((f) => f.transferId === 3).sort((a, b) => a.size - b.size);
  assert.equal(
    listed,
    [
      { transferId: 3, uid: empty, size: 0 },
      { transferId: 3, uid: other, size: 10 },
    ].sort((a, b) => a.size - b.size),
  );
  assert.ok((await store.usedBytes()) >= 10);
  await store.deleteFile(3, other);
  assert.not.ok(fs.existsSync(path.join(root, '3', other)));
  await store.deleteTransfer(3);
  assert.not.ok(fs.existsSync(path.join(root, '3')));
});

test('addresses that are not a transfer id and a 32-hex uid never reach the filesystem', async () => {
  for (const [t, u] of [
    [1, '../../etc/passwd'],
    [1, 'ABCDEF'],
    [0, uid()],
    [-1, uid()],
    [1.5, uid()],
  ] as [number, string][]) {
    await store.openRead(t, u).then(
      () => assert.unreachable(`${t}/${u} opened`),
      (e: Error) => assert.match(e.message, /invalid file address/),
    );
    await store.writeAt(t, u, 1, 0, Buffer.alloc(1), 1).then(
      () => assert.unreachable(`${t}/${u} accepted`),
      (e: Error) => assert.match(e.message, /invalid file address/),
    );
  }
  await store.deleteTransfer(0).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /invalid transfer id/),
  );
});

/** The flags (open(2)) of this process's descriptors open on `file`, from /proc/self/fdinfo. */
function descriptorFlags(file: string): number[] {
  const out: number[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let target = '';
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed meanwhile (the listing's own descriptor)
    }
    if (target !== file) continue;
    const m = /^flags:\s+([0-7]+)$/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
    if (m) out.push(parseInt(m[1], 8));
  }
  return out;
}

test('acknowledged means durable: every descriptor an upload writes through is O_DSYNC, so a write resolves only once its bytes are on the disk', async () => {
  const u = uid();
  const data = patternBytes('durable', 3 * 1024 * 1024);
  await store.writeAt(
    5,
    u,
    data.length,
    0,
    Readable.from([data.subarray(0, 1024 * 1024), data.subarray(1024 * 1024)]),
    data.length,
  );
  const flags = descriptorFlags(path.join(root, '5', u));
  assert.ok(flags.length >= 1, 'the upload keeps its descriptor open for the next chunk');
  for (const f of flags) {
    assert.is(f & 0o3, fs.constants.O_RDWR, 'open for reading and writing (O_ACCMODE)');
    assert.is(f & fs.constants.O_DSYNC, fs.constants.O_DSYNC, `flags ${f.toString(8)} lack O_DSYNC`);
  }
  // An upload resumed after its descriptor was closed (idle, or another process) opens it the same way.
  await store.finish(5, u, data.length);
  assert.equal(descriptorFlags(path.join(root, '5', u)), [], 'closed once finished');
  await store.writeAt(5, u, data.length, 0, data.subarray(0, 10), 10);
  const again = descriptorFlags(path.join(root, '5', u));
  assert.ok(again.length >= 1 && again.every((f) => (f & fs.constants.O_DSYNC) === fs.constants.O_DSYNC));
  await store.deleteTransfer(5);
});

test('the descriptor cache stays small when many uploads run at once', async () => {
  const before = store.cachedDescriptors;
  for (let i = 0; i < 300; i++) await store.writeAt(4, uid(), 1, 0, Buffer.alloc(1), 1);
  assert.ok(store.cachedDescriptors <= 128, `${store.cachedDescriptors} descriptors cached`);
  assert.ok(store.cachedDescriptors >= Math.min(before, 1));
  await store.deleteTransfer(4);
});

test.run();
