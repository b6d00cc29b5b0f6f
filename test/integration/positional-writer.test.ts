import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { heldBytes, writeStreamAt } from '../../src/storage/positional-writer';
import { patternBytes } from '../helpers/upload-client';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-writer-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function withFile<T>(
  size: number,
  fn: (h: fsp.FileHandle, file: string) => Promise<T>,
  flags = 'w+',
): Promise<T> {
  const file = path.join(dir, `f${Math.random().toString(16).slice(2)}`);
  fs.writeFileSync(file, Buffer.alloc(size));
  const h = await fsp.open(file, flags);
  try {
    return await fn(h, file);
  } finally {
    await h.close();
  }
}

/** Many small pieces, yielded slowly enough that writes and reads overlap. */
function pieces(data: Buffer, size: number): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < data.length; i += size) {
        if (i % (size * 50) === 0) await new Promise((r) => setImmediate(r));
        yield data.subarray(i, i + size);
      }
    })(),
  );
}

test('many small reads land at the offset, in order, whatever the batching', async () => {
  const data = patternBytes('pieces', 3 * 1024 * 1024 + 11);
  await withFile(data.length + 100, async (h, file) => {
    const n = await writeStreamAt(h, pieces(data, 7 * 1024), 100, data.length);
    assert.is(n, data.length);
    const back = fs.readFileSync(file);
    assert.ok(back.subarray(100).equals(data));
    assert.ok(back.subarray(0, 100).equals(Buffer.alloc(100)), 'nothing before the offset is touched');
  });
});

test('a body arriving slowly, a small piece at a time, is written in batches of 1 MiB, not a write per piece', async () => {
  const MiB = 1024 * 1024;
  const data = patternBytes('slow', 4 * MiB + 5);
  await withFile(data.length, async (h, file) => {
    let writes = 0;
    // The descriptor, counting the writes that reach it.
    const counted = new Proxy(h, {
      get(target, key) {
        const v = Reflect.get(target, key);
        if (key !== 'write' && key !== 'writev') return typeof v === 'function' ? v.bind(target) : v;
        return (...args: unknown[]) => {
          writes++;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    // 40 KiB at a time with a pause after each: every write is over before the next piece comes.
    const slow = Readable.from(
      (async function* () {
        for (let i = 0; i < data.length; i += 40 * 1024) {
          await new Promise((r) => setTimeout(r, 1));
          yield data.subarray(i, i + 40 * 1024);
        }
      })(),
    );
    assert.is(await writeStreamAt(counted, slow, 0, data.length), data.length);
    assert.ok(fs.readFileSync(file).equals(data));
    // 103 pieces: one write each before; now a write per MiB gathered and one for the tail.
    assert.ok(writes <= 6, `${writes} writes`);
  });
});

test('bodies that send part of a batch and stall keep at most 4 MiB gathered between them, not a batch each', async () => {
  const MiB = 1024 * 1024;
  const piece = 64 * 1024;
  const bodies = Array.from({ length: 30 }, () => new PassThrough());
  const data = bodies.map((_, i) => patternBytes(`stall${i}`, 12 * piece));
  const results = Promise.all(
    bodies.map((body, i) =>
      withFile(data[i].length, (h, file) =>
        writeStreamAt(h, body, 0, data[i].length).then(
          (n) => n === data[i].length && fs.readFileSync(file).equals(data[i]),
        ),
      ),
    ),
  );
  // One after the other, each sends 8 pieces (512 KiB, half a batch: 15 MiB in all) and then nothing for a while.
  for (let i = 0; i < bodies.length; i++) {
    for (let k = 0; k < 8; k++) {
      bodies[i].write(data[i].subarray(k * piece, (k + 1) * piece));
      await new Promise((r) => setImmediate(r));
    }
  }
  await new Promise((r) => setTimeout(r, 200));
  const stalled = heldBytes();
  for (let i = 0; i < bodies.length; i++) bodies[i].end(data[i].subarray(8 * piece));
  assert.equal(
    await results,
    bodies.map(() => true),
    'every body written whole at its place',
  );
  assert.ok(stalled <= 4 * MiB + 2 * piece, `held while stalled: ${stalled}`);
  assert.is(heldBytes(), 0);
});

test("written socket buffers are freed at once; a caller's views of a larger buffer are left alone", async () => {
  const data = patternBytes('owned', 8 * 64 * 1024);
  // Each piece owns its ArrayBuffer, as the HTTP parser's do.
  const owned = Array.from({ length: 8 }, (_, i) => Buffer.from(data.subarray(i * 65536, (i + 1) * 65536)));
  await withFile(data.length, async (h, file) => {
    assert.is(await writeStreamAt(h, Readable.from(owned), 0, data.length), data.length);
    assert.ok(fs.readFileSync(file).equals(data));
  });
  assert.ok(
    owned.every((b) => b.length === 0 && b.buffer.byteLength === 0),
    'each owned piece was given back',
  );
  const whole = Buffer.from(data);
  await withFile(data.length, async (h) => {
    await writeStreamAt(h, pieces(whole, 65536), 0, whole.length);
  });
  assert.ok(whole.equals(data), 'views of a larger buffer are not touched');
});

test('more bytes than expected: EOVERFLOW_CHUNK once the body is drained', async () => {
  await withFile(10, async (h) => {
    const err = await writeStreamAt(h, Readable.from([Buffer.alloc(6), Buffer.alloc(6)]), 0, 10).catch((e) => e);
    assert.is(err.code, 'EOVERFLOW_CHUNK');
  });
});

test('a body that closes without ending (client gone) rejects with ECONNRESET instead of hanging', async () => {
  await withFile(100, async (h) => {
    const body = new PassThrough();
    const result = writeStreamAt(h, body, 0, 100).catch((e) => e);
    body.write(Buffer.alloc(30));
    await new Promise((r) => setTimeout(r, 20));
    body.destroy();
    const err = await Promise.race([result, new Promise((r) => setTimeout(() => r('hang'), 2000))]);
    assert.is((err as { code?: string }).code, 'ECONNRESET');
  });
});

test('a failing write (here: a read-only descriptor) rejects with its error after draining the body', async () => {
  await withFile(
    100,
    async (h) => {
      const body = Readable.from([Buffer.alloc(40), Buffer.alloc(40)]);
      const err = await writeStreamAt(h, body, 0, 100).catch((e) => e);
      assert.is(err.code, 'EBADF');
      assert.ok(body.readableEnded, 'the rest of the body was read, so an answer can still be sent');
    },
    'r',
  );
});

test('many uploads at once share a bounded amount of memory and give it all back, also after overflows and aborts', async () => {
  const MiB = 1024 * 1024;
  let peak = 0;
  const watch = setInterval(() => (peak = Math.max(peak, heldBytes())), 1);
  const bodies = Array.from({ length: 40 }, (_, i) => patternBytes(`many${i}`, 3 * MiB));
  const results = await Promise.all(
    bodies.map((data, i) =>
      withFile(data.length, async (h, file) => {
        if (i % 10 === 9) {
          // Announced shorter than sent: refused, what was held is released.
          return writeStreamAt(h, pieces(data, 64 * 1024), 0, MiB).then(
            () => 'ok',
            (e) => e.code,
          );
        }
        if (i % 10 === 8) {
          const body = new PassThrough();
          const done = writeStreamAt(h, body, 0, data.length).then(
            () => 'ok',
            (e) => e.code,
          );
          body.write(data.subarray(0, MiB));
          setTimeout(() => body.destroy(), 5);
          return done;
        }
        const n = await writeStreamAt(h, pieces(data, 64 * 1024), 0, data.length);
        assert.ok(fs.readFileSync(file).equals(data), `body ${i}`);
        return n === data.length ? 'ok' : `short ${n}`;
      }),
    ),
  );
  clearInterval(watch);
  assert.equal(results.filter((r) => r !== 'ok').sort(), [
    'ECONNRESET',
    'ECONNRESET',
    'ECONNRESET',
    'ECONNRESET',
    'EOVERFLOW_CHUNK',
    'EOVERFLOW_CHUNK',
    'EOVERFLOW_CHUNK',
    'EOVERFLOW_CHUNK',
  ]);
  assert.is(heldBytes(), 0, 'nothing held once every upload ended');
  // Each upload may take a piece or two past the shared limit before it pauses; without the limit they held 120 MiB.
  assert.ok(peak <= 16 * MiB + 40 * 2 * 64 * 1024, `peak held ${peak}`);
});

test.run();
