import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { crc32Combine } from '../../src/domain/crc32-combine';
import { combinedCrc32, tilingOf } from '../../src/domain/pieces';

// A file's CRC-32 (the ZIP needs it) from its chunks' CRC-32s, without reading the file again.

test('crc32Combine equals a straight CRC-32 of random data split at random points', () => {
  for (let round = 0; round < 200; round++) {
    const data = crypto.randomBytes(1 + crypto.randomInt(200_000));
    const cuts = [
      0,
      ...Array.from({ length: crypto.randomInt(1, 6) }, () => crypto.randomInt(data.length + 1)).sort((a, b) => a - b),
      data.length,
    ];
    let crc = 0;
    for (let i = 0; i + 1 < cuts.length; i++) {
      const part = data.subarray(cuts[i], cuts[i + 1]);
      crc = crc32Combine(crc, zlib.crc32(part), part.length);
    }
    assert.is(crc, zlib.crc32(data) >>> 0, `round ${round}, cuts ${cuts.join(',')}`);
  }
});

test('lengths past 4 GiB: joining is associative, as for the real CRC (pieces of a 48 GiB file)', () => {
  const [a, b, c] = [0x12345678, 0x9abcdef0, 0x0fedcba9];
  for (const [lb, lc] of [
    [2 ** 32 + 17, 5 * 2 ** 20],
    [7 * 2 ** 32 + 3, 2 ** 33 - 1],
  ]) {
    const left = crc32Combine(crc32Combine(a, b, lb), c, lc);
    const right = crc32Combine(a, crc32Combine(b, c, lc), lb + lc);
    assert.is(left, right, `${lb} + ${lc}`);
  }
});

test('pieces: a tiling is found among overlapping resends; none when they only overlap in part', () => {
  const data = crypto.randomBytes(1000);
  const piece = (s: number, e: number) => ({ start: s, end: e, crc32: zlib.crc32(data.subarray(s, e)), receipt: '' });
  const pieces = [piece(0, 400), piece(0, 300), piece(300, 700), piece(400, 1000), piece(700, 1000)];
  assert.is(combinedCrc32(pieces, 1000), zlib.crc32(data) >>> 0);
  assert.is(tilingOf([piece(0, 500), piece(400, 1000)], 1000), null);
  assert.equal(tilingOf([], 0), []);
});

test.run();
