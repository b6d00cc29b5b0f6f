import { missingChunks, type ChunkPlan } from './chunks';
import { addRange, coveredBytes, isRangeList, type Range } from './ranges';

/**
 * Resume bookkeeping shared by the web page's uploader and `ferry send` (docs/architecture.md, One client
 * core): what the record of an unfinished upload keeps of each file (the byte ranges the server acknowledged,
 * whether the file was completed), what is left to send from it, how the server's own view is merged in on a
 * resume, and a book of records over a storage each side injects (the browser's localStorage, a folder of
 * files for the command line).
 */

/** What the record keeps of one file: ranges acknowledged by the server, and whether it was completed. */
export interface SentFile {
  size: number;
  acked: Range[];
  complete: boolean;
}

/** The file's record after the server acknowledged the chunk at `offset`. */
export function acknowledge(file: SentFile, offset: number, length: number): void {
  file.acked = addRange(file.acked, offset, offset + length);
}

/** The chunks still to send of a file (none once it was completed). */
export function chunksToSend(file: SentFile, chunkSize: number): ChunkPlan[] {
  return file.complete ? [] : missingChunks(file.size, chunkSize, file.acked);
}

/** Bytes of the file known to be on the server. */
export function sentBytes(file: SentFile): number {
  return file.complete ? file.size : Math.min(file.size, coveredBytes(file.acked));
}

/** Every byte acknowledged: the file only waits for its completion. */
export function allSent(file: SentFile): boolean {
  return coveredBytes(file.acked) >= file.size;
}

/** What a server says of a file (ferry's GET /file/{id}): any of it may be missing (FileSender tells none). */
export interface ServerFileView {
  complete?: unknown;
  ranges?: unknown;
  received?: unknown;
}

/**
 * A remembered file brought up to date with what the server says of it: the server's view wins where it knows
 * more (its `ranges`; a file it has whole or completed). Where it tells nothing, the record's own list stays:
 * every range in it was acknowledged, so it is a subset of what the server holds, and chunks whose answer never
 * arrived are sent again (they were in flight).
 */
export function reconcile(file: SentFile, server: ServerFileView | null): void {
  if (!server) return;
  if (server.complete === true) file.complete = true;
  if (isRangeList(server.ranges)) file.acked = server.ranges;
  else if (server.received === file.size) file.acked = [[0, file.size]];
}

/** Where records are kept, by key, as text: what each side injects. */
export interface RecordStorage {
  read(key: string): string | null;
  /** May throw (a full disk); the browser's storage swallows its own failures (a private window). */
  write(key: string, text: string): void;
  remove(key: string): void;
  keys(): string[];
}

/** Records of unfinished uploads over a storage: read back only when they still have their shape. */
export class ResumeBook<R> {
  constructor(
    private readonly storage: RecordStorage,
    private readonly isRecord: (v: unknown) => v is R,
  ) {}

  load(key: string): R | null {
    let text: string | null;
    try {
      text = this.storage.read(key);
    } catch {
      return null;
    }
    if (text === null) return null;
    try {
      const v: unknown = JSON.parse(text);
      return this.isRecord(v) ? v : null;
    } catch {
      return null;
    }
  }

  save(key: string, record: R): void {
    this.storage.write(key, JSON.stringify(record));
  }

  remove(key: string): void {
    this.storage.remove(key);
  }

  /** Every readable record, by key. */
  all(): { key: string; record: R }[] {
    const out: { key: string; record: R }[] = [];
    for (const key of this.storage.keys()) {
      const record = this.load(key);
      if (record !== null) out.push({ key, record });
    }
    return out;
  }
}

/** Whether a stored file entry has the shape of a SentFile (ranges checked: they decide what is skipped). */
export function isSentFile(v: unknown): v is SentFile {
  const f = v as SentFile;
  return (
    typeof f === 'object' &&
    f !== null &&
    Number.isSafeInteger(f.size) &&
    f.size >= 0 &&
    isRangeList(f.acked) &&
    typeof f.complete === 'boolean'
  );
}
