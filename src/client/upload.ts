import fs from 'node:fs';
import { chunkIndex } from '../shared/chunks';
import { acknowledge, chunksToSend, reconcile, type SentFile } from '../shared/resume';
import { ApiError, ClientError } from './errors';
import type { SendServer } from './servers/server';
import type { FileSeal } from './encryption';
import { RateMeter, type Reporter } from './progress';

/**
 * A File of the Transfer and the local file whose bytes it gets, with what the server has of it (`acked`: the
 * File's `ranges`, or what the resume record kept) and whether it was completed already (a rerun after the kill
 * came between completions): the bookkeeping the web page keeps too (src/shared/resume.ts).
 */
export interface UploadFile extends SentFile {
  fileId: number;
  name: string;
  path: string;
  mtimeMs: number;
  /** An encrypted transfer's file: its IV and AEAD (docs/encryption.md). */
  seal?: FileSeal;
}

interface Chunk {
  file: UploadFile;
  offset: number;
  length: number;
}

export interface UploadStats {
  chunksSent: number;
  bytesSent: number;
}

/**
 * Sends what the server lacks of every file, `parallel` chunks in flight across all files, each chunk retried
 * by the API client; completes each file (PUT /file/{id} complete) once its last chunk is in. A chunk the
 * server already holds whole is never sent again: the plan comes from the server's ranges.
 */
export async function uploadFiles(
  server: SendServer,
  files: UploadFile[],
  o: {
    chunkSize: number;
    parallel: number;
    reporter: Reporter;
    /** Told of each chunk the server acknowledged, once `acked` has it (kept for a resume where the server cannot tell it). */
    onStored?: (file: UploadFile) => void;
    onCompleted?: (file: UploadFile) => void;
    /** Encrypts a file's plaintext chunk `index` (an encrypted transfer); the URL offset stays the plaintext's. */
    seal?: (seal: FileSeal, index: number, plain: Uint8Array) => Promise<Buffer>;
  },
): Promise<UploadStats> {
  const stats: UploadStats = { chunksSent: 0, bytesSent: 0 };
  const queue: Chunk[] = [];
  const left = new Map<UploadFile, number>();
  const toComplete: UploadFile[] = [];
  for (const f of files) {
    if (f.complete) {
      o.reporter.fileDone('already sent', f.name, f.size);
      continue;
    }
    const chunks = chunksToSend(f, o.chunkSize).map((c) => ({ file: f, ...c }));
    if (chunks.length === 0) toComplete.push(f);
    left.set(f, chunks.length);
    queue.push(...chunks);
  }
  const handles = new Map<UploadFile, Promise<fs.promises.FileHandle>>();
  const open = (f: UploadFile) => {
    let h = handles.get(f);
    if (!h) {
      h = fs.promises.open(f.path, 'r');
      handles.set(f, h);
    }
    return h;
  };
  const close = async (f: UploadFile) => {
    const h = handles.get(f);
    handles.delete(f);
    if (h) await (await h).close().catch(() => {});
  };
  const meter = new RateMeter();
  // A big chunk on a slow link must still be inside its signature's window when it has arrived whole.
  const aheadFor = (length: number) => () => {
    const perStream = meter.rate() / o.parallel;
    const seconds = perStream > 0 ? length / perStream : 0;
    return seconds > 10 ? Math.min(3600, Math.ceil(seconds * 2)) : 0;
  };
  // Each worker reads its chunks into one buffer of its own, reused once a chunk's request has ended: 4 × 5 MiB
  // for a whole run instead of a new 5 MiB buffer per chunk for the collector to find.
  const sendChunk = async (c: Chunk, buffer: Buffer) => {
    const plain = await readChunk(await open(c.file), c, buffer);
    let body = plain;
    if (c.file.seal) {
      if (!o.seal) throw new ClientError(`${c.file.name} belongs to an encrypted transfer and no key was given`);
      body = await o.seal(c.file.seal, chunkIndex(c.offset, o.chunkSize), plain);
    }
    await server.putChunk(
      {
        fileId: c.file.fileId,
        offset: c.offset,
        length: c.length,
        fileSize: c.file.size,
        body,
        encrypted: !!c.file.seal,
        name: c.file.name,
        ahead: aheadFor(body.length),
      },
      // A chunk whose answer was lost may be stored already: where the server tells its ranges, it is not sent again.
      async () => {
        const ranges = await server.storedRanges(c.file.fileId, c.file.name);
        return (ranges ?? []).some(([a, b]) => a <= c.offset && b >= c.offset + c.length);
      },
    );
    acknowledge(c.file, c.offset, c.length);
    o.onStored?.(c.file);
    stats.chunksSent += 1;
    stats.bytesSent += body.length;
    meter.add(body.length);
    o.reporter.advance(c.length, c.file.name);
  };
  const completeFile = async (f: UploadFile, buffer: Buffer) => {
    await close(f);
    assertUnchanged(f);
    // Bounded: a server that keeps finding holes after they were sent again is not going to be satisfied.
    for (let round = 0; ; round++) {
      try {
        await server.completeFile(f.fileId, f.name);
        o.onCompleted?.(f);
        o.reporter.fileDone('sent', f.name, f.size);
        return;
      } catch (e) {
        if (!(e instanceof ApiError && e.id === 'file_incomplete') || round >= 2) throw e;
      }
      const ranges = await server.storedRanges(f.fileId, f.name);
      if (ranges === null)
        throw new ClientError(
          `completing ${f.name}: the server finds the file incomplete and cannot tell what it lacks; run the command again`,
          2,
        );
      reconcile(f, { ranges });
      for (const c of chunksToSend(f, o.chunkSize)) await sendChunk({ file: f, ...c }, buffer);
      await close(f);
    }
  };

  let failure: unknown = null;
  const worker = async () => {
    let buffer: Buffer | null = null;
    const own = () => (buffer ??= Buffer.allocUnsafe(o.chunkSize));
    while (failure === null) {
      const f = toComplete.shift();
      if (f) {
        await completeFile(f, own());
        continue;
      }
      const c = queue.shift();
      if (!c) return;
      await sendChunk(c, own());
      const n = (left.get(c.file) ?? 1) - 1;
      left.set(c.file, n);
      if (n === 0) await completeFile(c.file, own());
    }
  };
  const workers = Array.from({ length: Math.max(1, o.parallel) }, () =>
    worker().catch((e) => {
      failure ??= e;
    }),
  );
  await Promise.all(workers);
  for (const f of [...handles.keys()]) await close(f);
  if (failure !== null) throw failure;
  return stats;
}

async function readChunk(h: fs.promises.FileHandle, c: Chunk, into: Buffer): Promise<Buffer> {
  const buf = into.subarray(0, c.length);
  let got = 0;
  while (got < c.length) {
    const { bytesRead } = await h.read(buf, got, c.length - got, c.offset + got);
    if (bytesRead === 0) throw changed(c.file);
    got += bytesRead;
  }
  return buf;
}

function changed(f: UploadFile): ClientError {
  return new ClientError(`${f.path} changed while it was being sent; run the command again to send it anew`);
}

/** Refuses to complete a file whose size or modification time moved since the run began. */
function assertUnchanged(f: UploadFile): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(f.path);
  } catch {
    throw changed(f);
  }
  if (st.size !== f.size || Math.round(st.mtimeMs) !== Math.round(f.mtimeMs)) throw changed(f);
}
