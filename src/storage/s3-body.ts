import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { AbortedError, OverflowError } from './positional-writer';
import { objectStoreGarbage } from '../util/socket-garbage';
import type { SignedBody } from '../domain/ports';
import { StorageDownError } from './errors';

/**
 * A body that ended cleanly before the length the chunk announced: the client's sizes were wrong, the connection
 * was not cut. Nothing of it is stored (the store's request is aborted), so the caller answers as for any chunk of
 * the wrong size: what the filesystem's store tells by a short `written`.
 */
export class ShortBodyError extends Error {
  readonly code = 'ESHORT_BODY';
  constructor(readonly received: number) {
    super('the request body ended before the announced length');
  }
}

/** An answer for the client (a wrong signature: 401), not a broken body. */
function isRefusal(e: unknown): boolean {
  return typeof (e as { status?: unknown })?.status === 'number';
}

/**
 * A chunk whose bytes all lie on recorded ranges: read (and seen by its signature) but sent nowhere. Resolves
 * with its length; OverflowError past `expected`, AbortedError when cut short.
 */
export async function drainBody(data: Readable | Buffer, expected: number, signed?: SignedBody): Promise<number> {
  if (Buffer.isBuffer(data)) {
    if (data.length > expected) throw new OverflowError();
    signed?.see(data);
    return data.length;
  }
  let seen = 0;
  try {
    for await (const chunk of data as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (seen > expected) throw new OverflowError();
      signed?.see(chunk);
    }
  } catch (e) {
    throw e instanceof OverflowError ? e : new AbortedError();
  }
  return seen;
}

/**
 * A chunk's body gathered in memory (at most `expected` bytes; the caller bounds it), so its exact length is
 * known before it is sent. A body running past `expected` rejects with OverflowError once the rest (up to
 * `expected` more bytes) is drained, so the client gets its error answer on an intact connection; a body cut
 * short rejects with AbortedError.
 */
export function collectBody(data: Readable | Buffer, expected: number): Promise<Buffer> {
  if (Buffer.isBuffer(data))
    return data.length > expected ? Promise.reject(new OverflowError()) : Promise.resolve(data);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let drained = 0;
    let failed: Error | null = null;
    let settled = false;
    const settle = (e: Error | null) => {
      if (settled) return;
      settled = true;
      data.off('data', onData);
      if (e) reject(e);
      else resolve(Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      if (failed) {
        drained += chunk.length;
        if (drained > expected) data.destroy(failed);
        return;
      }
      received += chunk.length;
      if (received > expected) {
        failed = new OverflowError();
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    };
    data.on('data', onData);
    data.once('end', () => settle(failed));
    data.once('error', () => settle(failed ?? new AbortedError()));
    data.once('close', () => settle(failed ?? new AbortedError()));
  });
}

/**
 * A large body passed through as it arrives, with its CRC-32 taken on the way. Past `expected`, or ending
 * short, the request to the store is aborted (its Content-Length promised `expected` bytes) and failure()
 * tells why.
 */
export function countedBody(
  data: Readable,
  expected: number,
  abort: AbortController,
  signed?: SignedBody,
  stallMs = 0,
): { stream: Readable; crc32(): number; failure(): Error | null; settled(): void } {
  let crc = 0;
  let failure: Error | null = null;
  // The store's side only: armed while a piece waits for the store to take it, and once the last piece is sent
  // until the store answers (settled()); never while the client is slow to send. A store that stalls longer is
  // reported (503 storage_unavailable) rather than waited for: its request is aborted.
  let watchdog: NodeJS.Timeout | undefined;
  let over = false;
  const arm = () => {
    if (!stallMs || failure || over) return;
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      failure ??= new StorageDownError(`the object store took no bytes and gave no answer for ${stallMs} ms`);
      abort.abort(failure);
    }, stallMs);
    watchdog.unref();
  };
  const disarm = () => clearTimeout(watchdog);
  // Listened to at once: the store may not start reading the body before the client has gone away.
  data.once('error', () => {
    failure ??= new AbortedError();
    abort.abort(failure);
  });
  const stream = Readable.from(
    (async function* () {
      let seen = 0;
      try {
        for await (const chunk of data as AsyncIterable<Buffer>) {
          seen += chunk.length;
          if (seen > expected) throw new OverflowError();
          signed?.see(chunk);
          crc = zlib.crc32(chunk, crc);
          // The store makes a part or object of a request only once its last byte is sent: that byte waits
          // for the signature, and a wrong one aborts the request, so nothing of it is kept.
          if (signed && seen === expected) await signed.verified();
          arm();
          yield chunk;
          disarm();
          // Handed on: once sent, a buffer of the client's socket is garbage, like the store's (util/socket-garbage.ts).
          objectStoreGarbage.discarded(chunk.length);
        }
      } catch (e) {
        failure = e instanceof OverflowError || isRefusal(e) ? (e as Error) : new AbortedError();
      }
      if (!failure && seen < expected) failure = new ShortBodyError(seen);
      if (failure) abort.abort(failure);
      else arm();
    })(),
    { objectMode: false },
  );
  const settled = () => {
    over = true;
    disarm();
  };
  return { stream, crc32: () => crc >>> 0, failure: () => failure, settled };
}
