import crypto from 'node:crypto';
import type { PositionalReader } from '../../domain/downloads';

const MiB = 1024 * 1024;

/**
 * The SHA-256 of a stored file, taken while a response sends bytes [start, size) of it, so that its last bytes
 * can be held back until the digest is known (docs/hardening.md, "Corrupted stored files"). Bytes before
 * `start` (a Range that reaches the end, or a file late in an archive's range) are read from the store too.
 */
export interface StoredCheck {
  /** Bytes [pos, pos + buf.length) of the file are about to be sent (buf is reused once they are written). */
  sending(buf: Buffer, pos: number): void;
  /** The digest of the whole file; null when the file is no longer there to read (deleted meanwhile). */
  digest(): Promise<string | null>;
  close(): Promise<void>;
}

/** A file gone since the response opened it: this response still sends every byte, which cannot be checked. */
const gone = (e: unknown) => (e as { code?: unknown }).code === 'ENOENT';

/**
 * On the store's hashing threads (the filesystem): they read the file themselves, in step with what is sent
 * (and its prefix before `start` at once), so a download cut short costs no more hashing than it sent.
 */
export function threadCheck(
  stream: { ahead(upTo: number): void; digest(size: number): Promise<string>; forget(): void },
  start: number,
  size: number,
): StoredCheck {
  if (start > 0) stream.ahead(start);
  return {
    sending: (buf, pos) => stream.ahead(pos + buf.length),
    digest: async () => {
      try {
        return await stream.digest(size);
      } catch (e) {
        if (gone(e)) return null;
        throw e;
      }
    },
    close: async () => stream.forget(),
  };
}

/**
 * On the event loop (S3, or a store without hashing threads): the bytes sent are hashed as they go, about 1 ms
 * of CPU per MiB. When the response starts past byte 0, the bytes before it are read from the store in the
 * background and hashed first; the bytes sent meanwhile are read again after them, until the reading catches
 * up with the sending and the bytes sent are hashed as they go again.
 */
export function inlineCheck(
  open: (start: number, end: number) => Promise<PositionalReader>,
  start: number,
  size: number,
): StoredCheck {
  const hash = crypto.createHash('sha256');
  let pos = 0;
  let target = start;
  let loop: Promise<void> | null = null;
  let error: unknown = null;
  let reader: Promise<PositionalReader> | null = null;
  let buffer: Buffer | null = null;

  const readUpTo = async () => {
    reader ??= open(0, size - 1);
    const r = await reader;
    buffer ??= Buffer.allocUnsafeSlow(MiB);
    while (pos < target) {
      const n = await r.read(buffer, Math.min(MiB, target - pos), pos);
      if (n === 0) throw new Error(`stored file shorter than recorded: read ${pos} of ${size} bytes`);
      hash.update(buffer.subarray(0, n));
      pos += n;
    }
  };
  const run = () => {
    if (loop || error || pos >= target) return;
    loop = readUpTo()
      .catch((e: unknown) => {
        error = e;
      })
      .finally(() => {
        loop = null;
        run(); // sent further meanwhile
      });
  };
  run();
  return {
    sending: (buf, at) => {
      if (!loop && !error && at === pos) {
        hash.update(buf);
        pos += buf.length;
        target = Math.max(target, pos);
        return;
      }
      target = Math.max(target, at + buf.length);
      run();
    },
    digest: async () => {
      while (loop) await loop;
      if (error) {
        if (gone(error)) return null;
        throw error;
      }
      return hash.digest('hex');
    },
    close: async () => {
      const r = reader && (await reader.catch(() => null));
      await r?.close().catch(() => {});
    },
  };
}
