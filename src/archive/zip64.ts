import { ArchiveEntry, ArchiveLayout, layoutOf, Segment } from './layout';

/**
 * A stored (uncompressed) ZIP with ZIP64 records where sizes or offsets need them (APPNOTE 6.3.x). With the
 * CRC-32 and size of every file known in advance, no data descriptors are needed, the length is exact, and
 * any byte range can be served (resumable archive downloads).
 */
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const UTF8_FLAG = 0x0800;

function dosDateTime(unix: number): { time: number; date: number } {
  const d = new Date(Math.max(unix, 315532800) * 1000); // DOS dates start in 1980
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

function zip64Extra(values: number[]): Buffer {
  if (values.length === 0) return Buffer.alloc(0);
  const b = Buffer.alloc(4 + 8 * values.length);
  b.writeUInt16LE(0x0001, 0);
  b.writeUInt16LE(8 * values.length, 2);
  values.forEach((v, i) => b.writeBigUInt64LE(BigInt(v), 4 + 8 * i));
  return b;
}

function localHeader(e: ArchiveEntry, name: Buffer): Buffer {
  const big = e.size >= MAX32;
  const extra = big ? zip64Extra([e.size, e.size]) : Buffer.alloc(0);
  const { time, date } = dosDateTime(e.mtime);
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(big ? 45 : 20, 4);
  h.writeUInt16LE(UTF8_FLAG, 6);
  h.writeUInt16LE(0, 8); // stored
  h.writeUInt16LE(time, 10);
  h.writeUInt16LE(date, 12);
  h.writeUInt32LE(e.crc32 >>> 0, 14);
  h.writeUInt32LE(big ? MAX32 : e.size, 18);
  h.writeUInt32LE(big ? MAX32 : e.size, 22);
  h.writeUInt16LE(name.length, 26);
  h.writeUInt16LE(extra.length, 28);
  return Buffer.concat([h, name, extra]);
}

function centralHeader(e: ArchiveEntry, name: Buffer, offset: number): Buffer {
  const bigSize = e.size >= MAX32;
  const bigOffset = offset >= MAX32;
  const extra = zip64Extra([...(bigSize ? [e.size, e.size] : []), ...(bigOffset ? [offset] : [])]);
  const { time, date } = dosDateTime(e.mtime);
  const h = Buffer.alloc(46);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE((3 << 8) | 45, 4); // made by: Unix, spec 4.5
  h.writeUInt16LE(bigSize || bigOffset ? 45 : 20, 6);
  h.writeUInt16LE(UTF8_FLAG, 8);
  h.writeUInt16LE(0, 10);
  h.writeUInt16LE(time, 12);
  h.writeUInt16LE(date, 14);
  h.writeUInt32LE(e.crc32 >>> 0, 16);
  h.writeUInt32LE(bigSize ? MAX32 : e.size, 20);
  h.writeUInt32LE(bigSize ? MAX32 : e.size, 24);
  h.writeUInt16LE(name.length, 28);
  h.writeUInt16LE(extra.length, 30);
  h.writeUInt16LE(0, 32); // comment
  h.writeUInt16LE(0, 34); // disk
  h.writeUInt16LE(0, 36); // internal attributes
  h.writeUInt32LE((0o100644 << 16) >>> 0, 38); // regular file, rw-r--r--
  h.writeUInt32LE(bigOffset ? MAX32 : offset, 42);
  return Buffer.concat([h, name, extra]);
}

function endRecords(count: number, cdOffset: number, cdSize: number): Buffer {
  const needs64 = count >= MAX16 || cdOffset >= MAX32 || cdSize >= MAX32;
  const parts: Buffer[] = [];
  if (needs64) {
    const rec = Buffer.alloc(56);
    rec.writeUInt32LE(0x06064b50, 0);
    rec.writeBigUInt64LE(44n, 4);
    rec.writeUInt16LE((3 << 8) | 45, 12);
    rec.writeUInt16LE(45, 14);
    rec.writeUInt32LE(0, 16);
    rec.writeUInt32LE(0, 20);
    rec.writeBigUInt64LE(BigInt(count), 24);
    rec.writeBigUInt64LE(BigInt(count), 32);
    rec.writeBigUInt64LE(BigInt(cdSize), 40);
    rec.writeBigUInt64LE(BigInt(cdOffset), 48);
    const loc = Buffer.alloc(20);
    loc.writeUInt32LE(0x07064b50, 0);
    loc.writeUInt32LE(0, 4);
    loc.writeBigUInt64LE(BigInt(cdOffset + cdSize), 8);
    loc.writeUInt32LE(1, 16);
    parts.push(rec, loc);
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(Math.min(count, MAX16), 8);
  eocd.writeUInt16LE(Math.min(count, MAX16), 10);
  eocd.writeUInt32LE(Math.min(cdSize, MAX32), 12);
  eocd.writeUInt32LE(Math.min(cdOffset, MAX32), 16);
  parts.push(eocd);
  return Buffer.concat(parts);
}

export function zipLayout(entries: ArchiveEntry[]): ArchiveLayout {
  const segments: Segment[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const lh = localHeader(e, name);
    central.push(centralHeader(e, name, offset));
    segments.push({ kind: 'bytes', data: lh }, { kind: 'file', entry: e });
    offset += lh.length + e.size;
  }
  const cd = Buffer.concat(central);
  segments.push({ kind: 'bytes', data: Buffer.concat([cd, endRecords(entries.length, offset, cd.length)]) });
  return layoutOf(segments);
}
