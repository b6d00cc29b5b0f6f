import type { Writable } from 'node:stream';
import type { PositionalReader } from '../../domain/downloads';
import { ArchiveEntry, ArchiveLayout, slicesOf } from '../../archive/layout';
import type { StoredCheck } from './stored-check';

const MiB = 1024 * 1024;

/** What a file piece is of: the stored file (`size` as served) and its recorded SHA-256, if known. */
export interface PieceFile {
  id: number;
  uid: string;
  size: number;
  sha256: string | null;
}

/** Part of a response body: bytes in memory (archive headers) or [start, end] (inclusive) of a stored file. */
export type Piece =
  | { kind: 'bytes'; data: Buffer }
  | {
      kind: 'file';
      open: (start: number, end: number) => Promise<PositionalReader>;
      start: number;
      end: number;
      file?: PieceFile;
    };

/** The stored bytes sent do not match the file's recorded SHA-256: the answer is cut before its last bytes. */
export class DigestMismatch extends Error {
  constructor(
    readonly file: PieceFile,
    got: string,
  ) {
    super(`stored bytes do not match the recorded SHA-256 (recorded ${file.sha256}, read ${got})`);
  }
}

export interface SendOptions {
  /**
   * The check of a file piece that reaches its file's last byte, when the file has a recorded SHA-256
   * (docs/hardening.md, "Corrupted stored files"); none: no check.
   */
  check?: (piece: Extract<Piece, { kind: 'file' }> & { file: PieceFile }) => StoredCheck;
  /** Filled in as the bytes of each file piece (in order) are written to the connection (their write callbacks). */
  sent?: number[];
}

/**
 * Writes the pieces to the response (any writable) through two 1 MiB buffers that are reused: each is read into again only
 * once the socket has taken what was written from it. A file stream allocates a new buffer per MiB instead,
 * and after a busy spell the garbage collector answered that with a full collection every 30 MiB or so, which
 * cost downloads a third of their speed. Stops when the client goes away. A file shorter than its record
 * rejects (the caller then cuts the connection: never a truncated download that looks complete).
 *
 * With `check`, the last buffer of each file piece that ends its file is held back until the digest of the
 * stored file is known: when it differs from the recorded one, sendPieces rejects with DigestMismatch before
 * those last bytes are written, so the client sees a failed download rather than a good-looking corrupt file.
 */
export async function sendPieces(res: Writable, pieces: Piece[], opts: SendOptions = {}): Promise<void> {
  const sent = opts.sent;
  let gone = false;
  const closed = new Promise<void>((resolve) => res.once('close', () => ((gone = true), resolve())));
  let fileIndex = -1;
  const written = (chunk: Buffer, index: number) =>
    Promise.race([
      closed,
      new Promise<void>((resolve) =>
        res.write(chunk, (err) => {
          if (!err && sent) sent[index] = (sent[index] ?? 0) + chunk.length;
          resolve();
        }),
      ),
    ]);
  const buffers = [Buffer.allocUnsafeSlow(MiB), Buffer.allocUnsafeSlow(MiB)];
  const pending: (Promise<void> | null)[] = [null, null];
  let turn = 0;
  for (const piece of pieces) {
    if (gone) return;
    if (piece.kind === 'bytes') {
      if (piece.data.length) res.write(piece.data);
      continue;
    }
    const index = ++fileIndex;
    if (sent) sent[index] = 0;
    const f = piece.file;
    const check = opts.check && f?.sha256 && piece.end === f.size - 1 ? opts.check({ ...piece, file: f }) : null;
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
        const chunk = buffers[i].subarray(0, n);
        if (check) {
          check.sending(chunk, pos);
          if (pos + n > piece.end) {
            const got = await check.digest();
            if (got !== null && got !== f!.sha256) throw new DigestMismatch(f!, got);
          }
        }
        pending[i] = written(chunk, index);
        pos += n;
      }
    } finally {
      await reader.close();
      await check?.close();
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
  fileOf?: (entry: ArchiveEntry) => PieceFile,
): Piece[] {
  return [...slicesOf(layout, start, end)].map(
    ({ seg, from, to }): Piece =>
      seg.kind === 'bytes'
        ? { kind: 'bytes', data: seg.data.subarray(from, to + 1) }
        : {
            kind: 'file',
            open: (s, e) => open(seg.entry, s, e),
            start: from,
            end: to,
            ...(fileOf ? { file: fileOf(seg.entry) } : {}),
          },
  );
}
