import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { uploadGarbage } from '../util/socket-garbage';
import type { ChunkGuard } from '../domain/ports';

/**
 * Bytes gathered from the socket before they are written, together with one writev: a write starts once this
 * much is queued, the body has ended, or all uploads together hold GATHER_LIMIT. Each write is a hand-off to a
 * thread and back; writing every piece as it came cost a client that sends slowly (filesender.py: a piece of
 * 40 KiB at a time) six writes per 1 MiB and about 0.3 CPU-s/GiB more (docs/performance.md, Signed uploads).
 */
const BATCH = 1024 * 1024;
/**
 * Bytes held by all uploads together (gathered or being written). Past it an upload whose write is under way
 * stops reading its socket until that write is done: with 64 uploads at once each held up to 2 MiB (peak RSS
 * 300 MiB); now they share this much (16 MiB: 64 uploads peak at about 200 MiB, at the same speed).
 */
const HELD_LIMIT = 16 * 1024 * 1024;
/**
 * Below it, all uploads together, a body waits for a whole batch; past it, its next piece starts its write. A
 * few uploads at a time gather whole batches; hundreds at once (200 holding bodies) would otherwise each keep
 * up to a batch in memory, where the young-generation collections promote them (peak RSS 269-284 MiB against
 * 218-230 with this limit, and the same CPU with filesender.py).
 */
const GATHER_LIMIT = 4 * 1024 * 1024;
let heldTotal = 0;

/** Bytes of upload data held in memory by all writers (for tests). */
export function heldBytes(): number {
  return heldTotal;
}

export class OverflowError extends Error {
  readonly code = 'EOVERFLOW_CHUNK';
  constructor() {
    super('more data than announced');
  }
}

export class AbortedError extends Error {
  readonly code = 'ECONNRESET';
  constructor() {
    super('the request body ended before it was complete');
  }
}

/**
 * Writes a stream at `offset` of an open file, in batches of BATCH bytes gathered from the socket. The socket
 * keeps being read while a write runs: what arrives meanwhile (up to BATCH, then the stream is paused) is the
 * next batch, so a chunk costs a few system calls rather than one per 64 KiB read. Resolves with the bytes
 * written once all are on the file.
 *
 * When a write fails (ENOSPC) or the body runs past `expected`, the rest of the body is drained (up to
 * `expected` more bytes) before rejecting, so the client gets the error answer on an intact connection
 * instead of a reset. A body cut short by the client rejects with AbortedError.
 */
export function writeStreamAt(
  h: FileHandle,
  data: Readable,
  offset: number,
  expected: number,
  guard?: ChunkGuard,
): Promise<number> {
  const keep = guard?.keep ?? [];
  const signed = guard?.signed;
  // A body whose client already went away (it waited for another chunk): its 'close' has passed.
  if (data.destroyed && !data.readableEnded) return Promise.reject(new AbortedError());
  return new Promise((resolve, reject) => {
    let pos = offset;
    let queued: Buffer[] = [];
    let queuedBytes = 0;
    let received = 0;
    let writing = false;
    let ended = false;
    let settled = false;
    let failed: Error | null = null;
    let drained = 0;
    /** Bytes of this body counted in heldTotal. */
    let held = 0;
    const hold = (n: number) => {
      held += n;
      heldTotal += n;
    };

    const settle = (e: Error | null) => {
      if (settled) return;
      settled = true;
      hold(-held);
      data.off('data', onData);
      if (e) reject(e);
      else resolve(pos - offset);
    };
    const finishIfDone = () => {
      if (!ended || writing) return;
      settle(failed);
    };
    const flush = () => {
      if (writing || queuedBytes === 0 || failed) return finishIfDone();
      // Below a batch, wait for more: the next piece, the body's end or GATHER_LIMIT starts the write.
      if (!ended && queuedBytes < BATCH && heldTotal < GATHER_LIMIT) return;
      const batch = queued;
      const size = queuedBytes;
      queued = [];
      queuedBytes = 0;
      writing = true;
      writeOutside(h, batch, pos, size, keep).then(
        () => {
          pos += size;
          // The batch's socket buffers are on the disk now, and garbage.
          freeOwned(batch);
          uploadGarbage.discarded(size);
          hold(-Math.min(size, held)); // already released when the body settled early (a stream error)
          writing = false;
          if (data.isPaused() && !failed) data.resume();
          flush();
        },
        (e: Error) => {
          writing = false;
          failed = e;
          hold(-held);
          queued = [];
          queuedBytes = 0;
          data.resume(); // drain what is left so the error can be answered
          finishIfDone();
        },
      );
    };
    const onData = (chunk: Buffer) => {
      // Before the piece goes anywhere: a signed body's HMAC covers exactly the bytes that arrive.
      signed?.see(chunk);
      received += chunk.length;
      if (failed) {
        drained += chunk.length;
        if (drained > expected) data.destroy(failed);
        return;
      }
      if (received > expected) {
        failed = new OverflowError();
        hold(-queuedBytes);
        queued = [];
        queuedBytes = 0;
        return;
      }
      queued.push(chunk);
      queuedBytes += chunk.length;
      hold(chunk.length);
      if (writing && (queuedBytes >= BATCH || heldTotal >= HELD_LIMIT)) data.pause();
      flush();
    };

    data.on('data', onData);
    data.once('end', () => {
      ended = true;
      flush();
    });
    // The body failing (the client went away, the connection broke) is the body ending before it was complete.
    data.once('error', () => settle(failed ?? new AbortedError()));
    // A client that goes away mid-body: 'close' without 'end'. Settle after any write still running.
    data.once('close', () => {
      if (ended || settled) return;
      ended = true;
      failed ??= new AbortedError();
      finishIfDone();
    });
  });
}

/**
 * Gives back the memory of written socket buffers at once instead of at the next collection that reaches them:
 * each piece the HTTP parser hands on owns its ArrayBuffer, which is detached here (`transfer(0)`), freeing its
 * bytes. A buffer that is only a view of a larger one (a caller's own data) is left alone. Collections promoted
 * buffers still being gathered and freed them only in full collections: 64 uploads at once peaked at about
 * 260-290 MiB (docs/performance.md).
 */
function freeOwned(bufs: Buffer[]): void {
  for (const b of bufs) {
    const ab = b.buffer as ArrayBuffer & { detached?: boolean; transfer?(n: number): ArrayBuffer };
    if (b.byteOffset === 0 && ab.byteLength === b.length && ab instanceof ArrayBuffer && !ab.detached) ab.transfer?.(0);
  }
}

/** Writes a buffer at `position`, looping over short writes. */
export async function writeAll(h: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await h.write(buf, done, buf.length - done, position + done);
    done += bytesWritten;
  }
}

/**
 * Writes `bufs` (`size` bytes) at `position`, except where a range of `keep` lies: recorded bytes are final
 * (docs/architecture.md, Signed chunks while they stream), so what falls on them is dropped.
 */
async function writeOutside(
  h: FileHandle,
  bufs: Buffer[],
  position: number,
  size: number,
  keep: [number, number][],
): Promise<void> {
  const end = position + size;
  if (!keep.some(([a, b]) => a < end && b > position)) return writevAll(h, bufs, position);
  for (const [from, to] of gapsOf(keep, position, end))
    await writevAll(h, sliceOf(bufs, from - position, to - position), from);
}

/** The parts of [a, b) that no range of `keep` covers. */
export function gapsOf(keep: [number, number][], a: number, b: number): [number, number][] {
  const out: [number, number][] = [];
  let pos = a;
  for (const [x, y] of [...keep].sort((p, q) => p[0] - q[0])) {
    if (y <= pos || x >= b) continue;
    if (x > pos) out.push([pos, x]);
    pos = Math.max(pos, y);
    if (pos >= b) break;
  }
  if (pos < b) out.push([pos, b]);
  return out;
}

/** Bytes [from, to) of the concatenation of `bufs`, as views (nothing copied). */
function sliceOf(bufs: Buffer[], from: number, to: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const b of bufs) {
    const s = Math.max(from, at);
    const e = Math.min(to, at + b.length);
    if (s < e) out.push(b.subarray(s - at, e - at));
    at += b.length;
    if (at >= to) break;
  }
  return out;
}

async function writevAll(h: FileHandle, bufs: Buffer[], position: number): Promise<void> {
  if (bufs.length === 0) return;
  if (bufs.length === 1) return writeAll(h, bufs[0], position);
  const total = bufs.reduce((n, b) => n + b.length, 0);
  const { bytesWritten } = await h.writev(bufs, position);
  // A short writev is rare (a full disk reports ENOSPC instead); finish the rest plainly.
  if (bytesWritten < total) await writeAll(h, Buffer.concat(bufs).subarray(bytesWritten), position + bytesWritten);
}
