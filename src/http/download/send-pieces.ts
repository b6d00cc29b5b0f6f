import crypto from 'node:crypto';
import type { Writable } from 'node:stream';
import type { PositionalReader } from '../../domain/downloads';
import { ArchiveEntry, ArchiveLayout, slicesOf } from '../../archive/layout';

const MiB = 1024 * 1024;

/** Part of a response body: bytes in memory (archive headers) or [start, end] (inclusive) of a stored file. */
export type Piece =
  | { kind: 'bytes'; data: Buffer }
  | { kind: 'file'; open: (start: number, end: number) => Promise<PositionalReader>; start: number; end: number };

/**
 * Writes the pieces to the response (any writable) through two 1 MiB buffers that are reused: each is read into again only
 * once the socket has taken what was written from it. A file stream allocates a new buffer per MiB instead,
 * and after a busy spell the garbage collector answered that with a full collection every 30 MiB or so, which
 * cost downloads a third of their speed. Stops when the client goes away. A file shorter than its record
 * rejects (the caller then cuts the connection: never a truncated download that looks complete).
 */
/** The stored bytes sent do not match the file's recorded SHA-256: the answer is cut before its last bytes. */
export class DigestMismatch extends Error {
  constructor(expected: string, got: string) {
    super(`stored bytes do not match the recorded SHA-256 (recorded ${expected}, read ${got})`);
  }
}

/** A whole file's check: its recorded SHA-256, and the digest of its stored bytes when another thread takes it. */
export interface WholeFileCheck {
  sha256: string;
  /**
   * The stored bytes' digest taken elsewhere: `ahead(upTo)` is told of every buffer sent, `digest()` asked
   * before the last one. Without it the bytes are hashed here as they go.
   */
  stored?: { ahead(upTo: number): void; digest(): Promise<string> };
}

/**
 * With `check`, the last buffer of the file pieces is held back until the digest of the bytes is known: when it
 * differs from the recorded one, sendPieces rejects with DigestMismatch before the last bytes are written, so
 * the client sees a failed download rather than a good-looking corrupt file.
 */
export async function sendPieces(res: Writable, pieces: Piece[], check?: WholeFileCheck): Promise<void> {
  const sha256 = check?.sha256;
  const stored = check?.stored;
  const hash = check && !stored ? crypto.createHash('sha256') : null;
  let lastFile = -1;
  pieces.forEach((p, i) => (lastFile = p.kind === 'file' ? i : lastFile));
  let gone = false;
  const closed = new Promise<void>((resolve) => res.once('close', () => ((gone = true), resolve())));
  const written = (chunk: Buffer) =>
    Promise.race([closed, new Promise<void>((resolve) => res.write(chunk, () => resolve()))]);
  const buffers = [Buffer.allocUnsafeSlow(MiB), Buffer.allocUnsafeSlow(MiB)];
  const pending: (Promise<void> | null)[] = [null, null];
  let turn = 0;
  for (const [index, piece] of pieces.entries()) {
    if (gone) return;
    if (piece.kind === 'bytes') {
      if (piece.data.length) res.write(piece.data);
      continue;
    }
    const reader = await piece.open(piece.start, piece.end);
    try {
      for (let pos = piece.start; pos <= piece.end && !gone; ) {
        const i = turn++ % 2;
        if (pending[i]) await pending[i];
        if (gone) return;
        const n = await reader.read(buffers[i], Math.min(MiB, piece.end - pos + 1), pos);
        if (n === 0)
          throw new Error(
            `stored file shorter than recorded: expected ${piece.end - piece.start + 1} bytes, read ${pos - piece.start}`,
          );
        if (hash) hash.update(buffers[i].subarray(0, n));
        if (check && index === lastFile && pos + n > piece.end) {
          const got = stored ? await storedOrGone(stored) : hash!.digest('hex');
          if (got !== null && got !== sha256) throw new DigestMismatch(sha256!, got);
        }
        // The whole file is one piece from byte 0: what is sent so far is its prefix [0, pos + n).
        if (stored) stored.ahead(pos + n);
        pending[i] = written(buffers[i].subarray(0, n));
        pos += n;
      }
    } finally {
      await reader.close();
    }
  }
  await Promise.all(pending);
  if (!gone) res.end();
}

/** The pieces of bytes [start, end] (inclusive) of an archive: its header bytes and the ranges of its files. */
export function archivePieces(
  layout: ArchiveLayout,
  start: number,
  end: number,
  open: (entry: ArchiveEntry, start: number, end: number) => Promise<PositionalReader>,
): Piece[] {
  return [...slicesOf(layout, start, end)].map(
    ({ seg, from, to }): Piece =>
      seg.kind === 'bytes'
        ? { kind: 'bytes', data: seg.data.subarray(from, to + 1) }
        : { kind: 'file', open: (s, e) => open(seg.entry, s, e), start: from, end: to },
  );
}

/**
 * The stored bytes' digest from the store's hashing threads, or null when the file is no longer there to read
 * (purge or its owner deleted it during the download): this response reads through a descriptor opened before,
 * so it still delivers every byte, which cannot be checked again (docs/hardening.md, "Corrupted stored bytes").
 */
async function storedOrGone(stored: { digest(): Promise<string> }): Promise<string | null> {
  try {
    return await stored.digest();
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ENOENT') return null;
    throw e;
  }
}
