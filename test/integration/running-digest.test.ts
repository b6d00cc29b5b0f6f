import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { RunningDigests } from '../../src/storage/running-digest';
import { FileHasher, InlineHasher, WorkerHasher } from '../../src/storage/file-hasher';
import { HashThread } from '../../src/util/hash-thread';
import { patternBytes, sha256 } from '../helpers/upload-client';

const crc = (b: Buffer) => (zlib as unknown as { crc32(b: Buffer): number }).crc32(b) >>> 0;
const MiB = 1024 * 1024;

// The same behaviour whether blocks are hashed on the calling thread or on the hashing threads the server uses.
const thread = new HashThread();
for (const [kind, make] of [
  ['inline', () => new InlineHasher()],
  ['worker thread', () => new WorkerHasher(thread)],
] as [string, () => FileHasher][]) {
  const test = suite(`running digest, ${kind}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-digest-'));
  const digests = new RunningDigests((key) => path.join(dir, key), make());
  test.after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the prefix hashed in the background while it grows gives the digest of the whole file', async () => {
    const data = patternBytes('grow', 5 * MiB + 123);
    fs.writeFileSync(path.join(dir, 'grow'), data);
    for (let upTo = MiB / 2; upTo < data.length; upTo += MiB) digests.advance('grow', upTo);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await digests.finish('grow', data.length), { crc32: crc(data), sha256: sha256(data) });
  });

  test('without any background work (after a restart) the digest is computed from byte 0', async () => {
    const data = patternBytes('cold', 2 * MiB + 1);
    fs.writeFileSync(path.join(dir, 'cold'), data);
    assert.equal(await digests.finish('cold', data.length), { crc32: crc(data), sha256: sha256(data) });
    fs.writeFileSync(path.join(dir, 'empty'), '');
    assert.is((await digests.finish('empty', 0)).sha256, sha256(Buffer.alloc(0)));
    // An empty upload's file may not exist yet when its digest is asked for.
    assert.equal(await digests.finish('never-written', 0), { crc32: 0, sha256: sha256(Buffer.alloc(0)) });
  });

  test('bytes rewritten after they were hashed are hashed again: the digest is of what is stored', async () => {
    const file = path.join(dir, 'rewrite');
    const data = patternBytes('old', 3 * MiB);
    fs.writeFileSync(file, data);
    digests.advance('rewrite', data.length);
    await new Promise((r) => setTimeout(r, 50));
    const fresh = patternBytes('new', MiB);
    digests.written('rewrite', MiB);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, fresh, 0, fresh.length, MiB);
    fs.closeSync(fd);
    const now = fs.readFileSync(file);
    assert.equal(await digests.finish('rewrite', now.length), { crc32: crc(now), sha256: sha256(now) });
  });

  test('a file gone missing fails the digest instead of inventing one', async () => {
    digests.advance('missing', 10);
    const err = await digests.finish('missing', 10).catch((e) => e);
    assert.is(err.code, 'ENOENT');
  });

  test('many files at once each get their own digest', async () => {
    const files = Array.from({ length: 12 }, (_, i) => patternBytes(`many${i}`, 3 * MiB + i * 4097));
    files.forEach((d, i) => fs.writeFileSync(path.join(dir, `many${i}`), d));
    files.forEach((d, i) => digests.advance(`many${i}`, d.length - 1000));
    const got = await Promise.all(files.map((d, i) => digests.finish(`many${i}`, d.length)));
    got.forEach((g, i) => assert.equal(g, { crc32: crc(files[i]), sha256: sha256(files[i]) }, `file ${i}`));
  });

  test.run();
}

{
  const test = suite('running digest, idle hashing thread');
  test('an idle thread stops, never while a file is half hashed, and starts again for the next upload', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-digest-'));
    const idle = new HashThread(50);
    const digests = new RunningDigests((key) => path.join(dir, key), new WorkerHasher(idle));
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const a = patternBytes('idle-a', 3 * MiB + 1);
    fs.writeFileSync(path.join(dir, 'a'), a);
    digests.advance('a', 2 * MiB);
    await wait(200);
    assert.ok(idle.running, 'kept while the hash of a is half done');
    assert.equal(await digests.finish('a', a.length), { crc32: crc(a), sha256: sha256(a) });
    await wait(200);
    assert.not.ok(idle.running, 'stopped once idle');
    const b = patternBytes('idle-b', 2 * MiB + 3);
    fs.writeFileSync(path.join(dir, 'b'), b);
    digests.advance('b', b.length);
    assert.equal(await digests.finish('b', b.length), { crc32: crc(b), sha256: sha256(b) });
    assert.is(idle.failed, null);
    await idle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  test.run();
}

{
  const test = suite('running digest, hashing thread gone');
  test('when the hashing thread dies mid-file, completion still gets the right digest (hashed again here)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-digest-'));
    const dying = new HashThread();
    const digests = new RunningDigests((key) => path.join(dir, key), new WorkerHasher(dying));
    const data = patternBytes('dies', 4 * MiB + 7);
    fs.writeFileSync(path.join(dir, 'dies'), data);
    digests.advance('dies', 2 * MiB);
    await new Promise((r) => setTimeout(r, 30));
    await dying.close();
    assert.equal(await digests.finish('dies', data.length), { crc32: crc(data), sha256: sha256(data) });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  test.run();
}
