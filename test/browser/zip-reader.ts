import crypto from 'node:crypto';
import fs from 'node:fs';

/**
 * Reads the entries of a stored (uncompressed) ZIP or ZIP64 archive from disk and hashes each entry's bytes,
 * so a test can compare what came out of a downloaded archive with what was uploaded. Only what ferry's
 * archives use is supported: method 0 (stored), ZIP64 sizes and offsets.
 */
export interface ZipEntry {
  name: string;
  size: number;
  sha256: string;
}

export async function zipEntries(file: string): Promise<ZipEntry[]> {
  const fd = fs.openSync(file, 'r');
  try {
    const total = fs.fstatSync(fd).size;
    const tailLen = Math.min(total, 65_557 + 20 + 56);
    const tail = Buffer.alloc(tailLen);
    fs.readSync(fd, tail, 0, tailLen, total - tailLen);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw new Error('no end of central directory record');
    let count = tail.readUInt16LE(eocd + 10);
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    const loc = eocd - 20;
    if (loc >= 0 && tail.readUInt32LE(loc) === 0x07064b50) {
      const z64 = Number(tail.readBigUInt64LE(loc + 8));
      const rec = Buffer.alloc(56);
      fs.readSync(fd, rec, 0, 56, z64);
      if (rec.readUInt32LE(0) !== 0x06064b50) throw new Error('bad ZIP64 end record');
      count = Number(rec.readBigUInt64LE(32));
      cdSize = Number(rec.readBigUInt64LE(40));
      cdOffset = Number(rec.readBigUInt64LE(48));
    }
    const cd = Buffer.alloc(cdSize);
    fs.readSync(fd, cd, 0, cdSize, cdOffset);
    const out: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count; i++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central header ${i}`);
      const method = cd.readUInt16LE(p + 10);
      let size = cd.readUInt32LE(p + 20);
      let usize = cd.readUInt32LE(p + 24);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      let offset = cd.readUInt32LE(p + 42);
      const name = cd.subarray(p + 46, p + 46 + nameLen).toString('utf8');
      // ZIP64 extra field: the 64-bit values, in order, of those that are 0xFFFFFFFF above.
      let e = p + 46 + nameLen;
      const end = e + extraLen;
      while (e + 4 <= end) {
        const id = cd.readUInt16LE(e);
        const len = cd.readUInt16LE(e + 2);
        if (id === 0x0001) {
          let q = e + 4;
          if (usize === 0xffffffff) (usize = Number(cd.readBigUInt64LE(q))), (q += 8);
          if (size === 0xffffffff) (size = Number(cd.readBigUInt64LE(q))), (q += 8);
          if (offset === 0xffffffff) offset = Number(cd.readBigUInt64LE(q));
        }
        e += 4 + len;
      }
      if (method !== 0) throw new Error(`${name}: compression method ${method}, expected stored`);
      const local = Buffer.alloc(30);
      fs.readSync(fd, local, 0, 30, offset);
      const dataStart = offset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      out.push({ name, size: usize, sha256: await hashRange(file, dataStart, usize) });
      p = end + commentLen;
    }
    return out;
  } finally {
    fs.closeSync(fd);
  }
}

function hashRange(file: string, start: number, length: number): Promise<string> {
  const h = crypto.createHash('sha256');
  if (length === 0) return Promise.resolve(h.digest('hex'));
  return new Promise((resolve, reject) => {
    fs.createReadStream(file, { start, end: start + length - 1 })
      .on('data', (d) => h.update(d))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}
