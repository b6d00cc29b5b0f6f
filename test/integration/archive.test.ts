import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { ArchiveEntry, ArchiveLayout, safeEntryNames } from '../../src/archive/layout';
import { archivePieces, sendPieces } from '../../src/http/download/send-pieces';
import { openPositional } from '../../src/storage/fs-store';
import { zipLayout } from '../../src/archive/zip64';
import { tarLayout } from '../../src/archive/tar';
import { tempDir } from '../helpers/server';

const dir = tempDir('ferry-archive-');
const crc32 = (zlib as unknown as { crc32(b: Buffer, v?: number): number }).crc32;

function makeFile(name: string, bytes: Buffer): ArchiveEntry & { file: string } {
  const file = path.join(dir, crypto.randomBytes(6).toString('hex'));
  fs.writeFileSync(file, bytes);
  return { name, size: bytes.length, crc32: crc32(bytes), mtime: 1_700_000_000, ref: file, file };
}

/** Bytes [start, end] of the archive as a download sends them (copied as they are written: the sender reuses its buffers). */
async function write(layout: ArchiveLayout, out: string, start = 0, end = layout.length - 1): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  await sendPieces(
    sink,
    archivePieces(layout, start, end, (e: ArchiveEntry) => openPositional(e.ref as string)),
  );
  const all = Buffer.concat(chunks);
  if (out) fs.writeFileSync(out, all);
  return all;
}

function python(code: string, ...args: string[]) {
  const r = spawnSync('python3', ['-c', code, ...args], { encoding: 'utf8', timeout: 120_000 });
  assert.is(r.status, 0, r.stderr);
  return r.stdout;
}

const entries = () => [
  makeFile('report.pdf', crypto.randomBytes(300_000)),
  makeFile('Ünïcødé 文件.txt', Buffer.from('hello')),
  makeFile('empty', Buffer.alloc(0)),
  makeFile('dir/inner.bin', crypto.randomBytes(70_000)),
];

test('ZIP: exact length, and an independent reader checks every CRC and byte', async () => {
  const es = entries();
  const layout = zipLayout(es);
  const out = path.join(dir, 'a.zip');
  const bytes = await write(layout, out);
  assert.is(bytes.length, layout.length);
  const listing = python(
    'import zipfile,sys,hashlib,json\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(json.dumps({i.filename: hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist()}))',
    out,
  );
  const got = JSON.parse(listing);
  for (const e of es)
    assert.is(got[e.name], crypto.createHash('sha256').update(fs.readFileSync(e.file)).digest('hex'), e.name);
  const unzip = spawnSync('unzip', ['-t', out], { encoding: 'utf8' });
  if (!unzip.error) assert.match(unzip.stdout, /No errors detected/);
});

test('any byte range of the archive equals the same slice of the whole', async () => {
  const layout = zipLayout(entries());
  const whole = await write(layout, '');
  const cuts = [
    [0, 0],
    [0, 29],
    [30, 40],
    [100, 300_100],
    [layout.length - 22, layout.length - 1],
    [12345, 12345],
  ];
  for (let i = 0; i < 20; i++) {
    const a = crypto.randomInt(layout.length);
    cuts.push([a, a + crypto.randomInt(layout.length - a)]);
  }
  for (const [s, e] of cuts) assert.ok((await write(layout, '', s, e)).equals(whole.subarray(s, e + 1)), `${s}-${e}`);
});

test('tar: exact length; tar lists and extracts the same bytes, Unicode names included', async () => {
  const es = entries();
  const layout = tarLayout(es);
  const out = path.join(dir, 'a.tar');
  const bytes = await write(layout, out);
  assert.is(bytes.length, layout.length);
  assert.is(layout.length % 512, 0);
  const x = path.join(dir, 'x');
  fs.mkdirSync(x);
  const r = spawnSync('tar', ['-xf', out, '-C', x], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  for (const e of es) assert.ok(fs.readFileSync(path.join(x, e.name)).equals(fs.readFileSync(e.file)), e.name);
});

test('a body shorter than recorded fails the stream instead of passing for a whole archive', async () => {
  const e = makeFile('x', crypto.randomBytes(1000));
  const layout = zipLayout([e]);
  fs.truncateSync(e.file, 500);
  try {
    await write(layout, '');
    assert.unreachable('should fail');
  } catch (err) {
    assert.match(String(err), /expected 1000 bytes, read 500/);
  }
});

test('entry names never escape the archive and stay unique', () => {
  assert.equal(
    safeEntryNames([
      '../../etc/passwd',
      '/abs/path.txt',
      'C:\\win\\x.txt',
      'a/./b/../c',
      'ok.txt',
      'OK.txt',
      'ok.txt',
      '..',
      'tab\there\u202Egnp.exe',
    ]),
    [
      'etc/passwd',
      'abs/path.txt',
      'win/x.txt',
      'a/b/c',
      'ok.txt',
      'OK (2).txt',
      'ok (3).txt',
      'file',
      'tabheregnp.exe',
    ],
  );
});

test('ZIP64 past 4 GiB: a sparse 4.3 GiB file and one after it, checked by an independent reader', async () => {
  const bigFile = path.join(dir, 'big.sparse');
  const bigSize = Math.floor(4.3 * 1024 ** 3);
  fs.closeSync(fs.openSync(bigFile, 'w'));
  fs.truncateSync(bigFile, bigSize);
  // CRC-32 of zeros, computed in 64 MiB steps without reading the sparse file.
  const zeros = Buffer.alloc(64 * 1024 * 1024);
  let crc = 0;
  for (let left = bigSize; left > 0; left -= zeros.length)
    crc = crc32(zeros.subarray(0, Math.min(zeros.length, left)), crc);
  const small = makeFile('after.txt', Buffer.from('after the big one'));
  const layout = zipLayout([{ name: 'big.bin', size: bigSize, crc32: crc, mtime: 1_700_000_000, ref: bigFile }, small]);
  // Write the archive sparse too: header bytes at their offsets, the zero body left as a hole.
  const out = path.join(dir, 'big.zip');
  const fd = fs.openSync(out, 'w');
  let pos = 0;
  for (const seg of layout.segments) {
    if (seg.kind === 'bytes') fs.writeSync(fd, seg.data, 0, seg.data.length, pos);
    else if (seg.entry === small) fs.writeSync(fd, fs.readFileSync(small.file), 0, small.size, pos);
    pos += seg.kind === 'bytes' ? seg.data.length : seg.entry.size;
  }
  fs.ftruncateSync(fd, layout.length);
  fs.closeSync(fd);
  const outText = python(
    'import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1])\nb=z.getinfo("big.bin")\nprint(b.file_size, b.header_offset, z.getinfo("after.txt").header_offset)\nprint(z.read("after.txt").decode())\nwith z.open("big.bin") as f:\n  n=0\n  while True:\n    c=f.read(1<<24)\n    if not c: break\n    n+=len(c)\nprint(n)',
    out,
  );
  const [sizes, text, readBack] = outText.trim().split('\n');
  const [fileSize, , afterOffset] = sizes.split(' ').map(Number);
  assert.is(fileSize, bigSize);
  assert.ok(afterOffset > 0xffffffff, 'second entry lies past 4 GiB');
  assert.is(text, 'after the big one');
  assert.is(Number(readBack), bigSize); // python checks the CRC when the stream ends
  fs.rmSync(out);
  fs.rmSync(bigFile);
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();
