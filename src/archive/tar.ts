import { ArchiveEntry, ArchiveLayout, layoutOf, Segment } from './layout';

/**
 * POSIX (pax) tar: a ustar header per file, preceded by a pax extended header when the name is not plain
 * ASCII or too long, or the size does not fit ustar's 8 GiB octal field. Length is exact, like the ZIP's.
 */
const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, mtime: number, type: '0' | 'x'): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(type === 'x' ? 0o644 : 0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.max(0, Math.floor(mtime)), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii'); // checksum placeholder: spaces while summing
  h.write(type, 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(octal(sum, 7) + ' ', 148, 'ascii');
  return h;
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

function pad(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK - rest);
}

export function tarLayout(entries: ArchiveEntry[]): ArchiveLayout {
  const segments: Segment[] = [];
  for (const e of entries) {
    const plainName = /^[\x20-\x7e]{1,99}$/.test(e.name);
    const bigSize = e.size > 0o77777777777;
    const parts: Buffer[] = [];
    if (!plainName || bigSize) {
      const records = (plainName ? '' : paxRecord('path', e.name)) + (bigSize ? paxRecord('size', String(e.size)) : '');
      const data = Buffer.from(records, 'utf8');
      parts.push(header('PaxHeader', data.length, e.mtime, 'x'), data, pad(data.length));
    }
    // The ustar name is what a reader without pax support extracts: the last component only, so that cutting a
    // long path can never leave it starting with "/" or "../".
    const last = e.name
      .slice(e.name.lastIndexOf('/') + 1)
      .replace(/[^\x20-\x7e]/g, '_')
      .slice(-99);
    const shortName = plainName ? e.name : /^\.*$/.test(last) ? 'file' : last;
    parts.push(header(shortName, bigSize ? 0 : e.size, e.mtime, '0'));
    segments.push(
      { kind: 'bytes', data: Buffer.concat(parts) },
      { kind: 'file', entry: e },
      { kind: 'bytes', data: pad(e.size) },
    );
  }
  segments.push({ kind: 'bytes', data: Buffer.alloc(2 * BLOCK) });
  return layoutOf(segments);
}
