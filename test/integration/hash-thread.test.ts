import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { HashThread } from '../../src/util/hash-thread';
import { patternBytes, sha256 } from '../helpers/upload-client';

// The hashing threads: a pool sized to the cores, each file's hash on one thread, the files spread over them.
const crc = (b: Buffer) => (zlib as unknown as { crc32(b: Buffer): number }).crc32(b) >>> 0;
const MiB = 1024 * 1024;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-hash-pool-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Threads of this process (the OS's count: a worker that has ended is gone from it). */
const osThreads = () => fs.readdirSync('/proc/self/task').length;

test('the pool is as large as the cores the process may use', async () => {
  assert.is(new HashThread().size, os.availableParallelism());
});

test('files hashed at once are spread over the threads, up to the pool size, and each gets its own digest', async () => {
  const pool = new HashThread(1000, 3);
  const files = Array.from({ length: 7 }, (_, i) => patternBytes(`pool${i}`, 2 * MiB + i * 1031));
  files.forEach((d, i) => fs.writeFileSync(path.join(dir, `pool${i}`), d));
  files.forEach((d, i) => assert.ok(pool.hash(i + 1, path.join(dir, `pool${i}`), d.length)));
  assert.is(pool.running, 3, 'one thread per file up to the pool size');
  const got = await Promise.all(files.map((_, i) => pool.digest(i + 1)));
  got.forEach((g, i) => assert.equal(g, { crc32: crc(files[i]), sha256: sha256(files[i]) }, `file ${i}`));
  assert.is(pool.running, 3, 'never more threads than the pool size');
  // A stream advanced in steps stays on the thread that holds its state.
  const grown = patternBytes('steps', 3 * MiB + 7);
  fs.writeFileSync(path.join(dir, 'steps'), grown);
  for (let upTo = MiB; upTo < grown.length; upTo += MiB) pool.hash(99, path.join(dir, 'steps'), upTo);
  pool.hash(99, path.join(dir, 'steps'), grown.length);
  assert.equal(await pool.digest(99), { crc32: crc(grown), sha256: sha256(grown) });
  await pool.close();
});

test('close ends every thread: the process has no more threads than before the pool started', async () => {
  const data = patternBytes('close', MiB);
  fs.writeFileSync(path.join(dir, 'close'), data);
  await fs.promises.readFile(path.join(dir, 'close')); // libuv's own threads started before counting
  const before = osThreads();
  const pool = new HashThread(60_000, 2);
  pool.hash(1, path.join(dir, 'close'), data.length);
  pool.hash(2, path.join(dir, 'close'), data.length);
  assert.equal(await pool.digest(1), { crc32: crc(data), sha256: sha256(data) });
  assert.ok(osThreads() >= before + 2, 'two threads up');
  await pool.close();
  assert.is(pool.running, 0);
  for (let i = 0; i < 50 && osThreads() > before; i++) await new Promise((r) => setTimeout(r, 20));
  assert.is(osThreads(), before, 'the threads ended');
  assert.ok(pool.failed, 'a closed pool takes no more work');
  assert.not.ok(pool.hash(3, path.join(dir, 'close'), data.length));
});

test.run();
