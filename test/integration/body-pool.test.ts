import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import { threadedSignatureCheck } from '../../src/auth/signature';
import { HashThread } from '../../src/util/hash-thread';
import { BodyPool } from '../../src/util/body-pool';
import { arrivedRequest as req } from '../helpers/auth-request';

// The body pool that holds big request bodies, and the signature check that hashes them on a hashing thread. Not in
// the unit group: a hashing thread is started, and the pool's memory is measured in the process's own figures, which
// another file's garbage in the same process would blur (docs/development.md, "Testing").

test('a big signed body from the body pool is checked on the hashing thread where it is; other memory and a gone thread are checked here', async () => {
  const data = crypto.randomBytes(5 * 1024 * 1024 + 3);
  const url = '/file/7/chunk/0?remote_application=portal&timestamp=1700000000';
  const signature = crypto
    .createHmac('sha1', 'app-secret')
    .update(`put&files.example.org${url}&`)
    .update(data)
    .digest('hex');
  const thread = new HashThread();
  const pool = new BodyPool();
  const check = threadedSignatureCheck(thread, pool);
  const own = (b: Buffer) => {
    const c = pool.take(b.length, 6 * 1024 * 1024);
    b.copy(c);
    return c;
  };
  const shared = Buffer.from(new SharedArrayBuffer(data.length));
  data.copy(shared);
  const pooled = Buffer.concat([Buffer.alloc(16), data]).subarray(16);
  const r = req('PUT', `${url}&signature=${signature}`, 'files.example.org');
  for (const [label, body] of [
    ['own memory', own(data)],
    ['shared memory', shared],
    ['a slice', pooled],
  ] as const) {
    r.body = body;
    assert.is(await check(signature, ['other', 'app-secret'], r, 'https://files.example.org'), true, label);
    assert.is(r.body, body, `${label}: the same body afterwards`);
    assert.ok(r.body.equals(data), `${label}: the body is intact`);
    assert.is(await check(signature, ['other'], r, 'https://files.example.org'), false, label);
    const flipped = own(data);
    flipped[12345] ^= 1;
    r.body = flipped;
    assert.is(await check(signature, ['app-secret'], r, 'https://files.example.org'), false, label);
  }
  assert.ok(thread.running, "the pool's bodies went to the thread");
  await thread.close();
  r.body = own(data);
  assert.is(await check(signature, ['app-secret'], r, 'https://files.example.org'), true);
  assert.is(await check('0'.repeat(40), ['app-secret'], r, 'https://files.example.org'), false);
});

test('the body pool hands out slots of slabs above 32 MiB, reuses them, refuses what is not its own, and starts over when the chunk size changes', () => {
  const MiB = 1024 * 1024;
  const pool = new BodyPool();
  const a = pool.take(10, 5 * MiB);
  assert.is(a.length, 10);
  assert.ok(a.buffer instanceof SharedArrayBuffer);
  assert.ok(a.buffer.byteLength > 32 * MiB, 'a slab glibc maps and unmaps without raising its mmap threshold');
  assert.ok(pool.owns(a));
  const slab = a.buffer;
  const b = pool.take(5 * MiB, 5 * MiB);
  assert.is(b.buffer, slab, 'bodies share a slab');
  assert.not.ok(b.byteOffset < a.byteOffset + 5 * MiB && a.byteOffset < b.byteOffset + 5 * MiB, 'slots do not overlap');
  pool.give(a);
  pool.give(a); // given back twice: still one free slot
  const c = pool.take(50, 5 * MiB);
  assert.is(c.byteOffset, a.byteOffset, 'the slot freed last is reused');
  const d = pool.take(50, 5 * MiB);
  assert.is.not(d.byteOffset, c.byteOffset, 'a slot given back twice is handed out once');
  assert.not.ok(pool.owns(Buffer.alloc(100)));
  assert.not.ok(pool.owns(Buffer.from(new SharedArrayBuffer(100))));
  assert.not.ok(pool.owns(b.subarray(1)), 'a view into a slot is not a body');
  pool.give(Buffer.alloc(100)); // not its own: ignored
  const many = Array.from({ length: 8 }, () => pool.take(1, 5 * MiB));
  assert.ok(
    many.some((x) => x.buffer !== slab),
    'a full slab gets a neighbour',
  );
  const other = pool.take(10, 6 * MiB);
  assert.is.not(other.buffer, slab, 'a new chunk size takes a new slab');
  assert.throws(() => pool.take(6 * MiB + 1, 6 * MiB));
  for (const x of [b, c, d, ...many]) pool.give(x);
  assert.not.ok(pool.owns(b), 'slabs of the earlier chunk size go once their bodies are back');
});

test('the body pool lets its memory go when no body came for a while', async () => {
  const pool = new BodyPool(30);
  const a = pool.take(10, 100);
  const first = a.buffer;
  pool.give(a);
  await new Promise((r) => setTimeout(r, 80));
  assert.is.not(pool.take(10, 100).buffer, first);
});

test('memory the body pool lets go goes back at once, not at some later full collection', async () => {
  const MiB = 1024 * 1024;
  const pool = new BodyPool(30);
  const before = process.memoryUsage().arrayBuffers;
  const bodies = Array.from({ length: 3 }, () => pool.take(5 * MiB, 5 * MiB + 65536));
  const held = process.memoryUsage().arrayBuffers - before;
  assert.ok(held >= 33 * MiB, `${held} bytes held`);
  for (const b of bodies) pool.give(b);
  bodies.length = 0;
  await new Promise((r) => setTimeout(r, 100));
  const left = process.memoryUsage().arrayBuffers - before;
  assert.ok(left < 4 * MiB, `${(left / MiB).toFixed(1)} MiB still held after the pool let its slab go`);
});

test.run();
