import { isSentFile, type RecordStorage, ResumeBook, type SentFile } from '../../src/shared/resume';
import type { RecordEncryption } from './encryption';

/**
 * What the page remembers of an unfinished upload so that it survives a reload or a browser restart. Only
 * facts the server gave and the byte ranges it acknowledged are kept; the file data is asked for again and
 * matched by name, size and modification time. The bookkeeping is the one `ferry send` uses
 * (src/shared/resume.ts); the page injects where records are kept: the browser's localStorage.
 */
export interface ResumeFile extends SentFile {
  fileId: number;
  uid: string;
  name: string;
  lastModified: number;
  /** An encrypted file's IV and AEAD (base64, as the server has them): chunk i is sealed the same way again. */
  iv?: string;
  aead?: string;
}

export interface ResumeRecord {
  transferId: number;
  /** Who started it (a user id, or "guest:<vid>"), so one browser shared by two people keeps them apart. */
  owner: string;
  created: number;
  chunkSize: number;
  subject: string;
  recipients: string[];
  files: ResumeFile[];
  /** Download links given at creation, shown in the summary. */
  links: { email: string; url: string }[];
  /** End-to-end encrypted: what deriving the key again needs besides the password (never the key). */
  encryption?: RecordEncryption;
}

export interface ResumeStore {
  list(owner: string): ResumeRecord[];
  save(record: ResumeRecord): void;
  remove(transferId: number): void;
}

/** Minimal Storage (localStorage in the browser; a Map in tests). */
export interface KeyValue {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const ITEM = 'ferry.unfinished-uploads';

/**
 * The records as one item of the browser's storage: an object of records by key. Storage full or disabled (a
 * private window) loses the record, never the upload: it goes on, it just cannot be resumed after a reload.
 */
export class ItemStorage implements RecordStorage {
  constructor(
    private readonly kv: KeyValue,
    private readonly item = ITEM,
  ) {}

  private all(): Record<string, unknown> {
    try {
      const parsed: unknown = JSON.parse(this.kv.getItem(this.item) ?? '{}');
      // A list is how records were kept before they had keys: each is keyed by its transfer.
      if (Array.isArray(parsed))
        return Object.fromEntries(parsed.map((r) => [String((r as { transferId?: unknown })?.transferId), r]));
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  private put(records: Record<string, unknown>): void {
    try {
      if (Object.keys(records).length) this.kv.setItem(this.item, JSON.stringify(records));
      else this.kv.removeItem(this.item);
    } catch {
      // Storage full or disabled: see above.
    }
  }

  read(key: string): string | null {
    const r = this.all()[key];
    return r === undefined ? null : JSON.stringify(r);
  }

  write(key: string, text: string): void {
    this.put({ ...this.all(), [key]: JSON.parse(text) });
  }

  remove(key: string): void {
    const { [key]: _gone, ...rest } = this.all();
    this.put(rest);
  }

  keys(): string[] {
    return Object.keys(this.all());
  }
}

export class StorageResumeStore implements ResumeStore {
  private readonly book: ResumeBook<ResumeRecord>;
  constructor(kv: KeyValue) {
    this.book = new ResumeBook(new ItemStorage(kv), isRecord);
  }

  list(owner: string): ResumeRecord[] {
    return this.book
      .all()
      .map((e) => e.record)
      .filter((r) => r.owner === owner);
  }

  save(record: ResumeRecord): void {
    this.book.save(String(record.transferId), record);
  }

  remove(transferId: number): void {
    this.book.remove(String(transferId));
  }
}

export class MemoryKeyValue implements KeyValue {
  private readonly m = new Map<string, string>();
  getItem(k: string) {
    return this.m.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.m.set(k, v);
  }
  removeItem(k: string) {
    this.m.delete(k);
  }
}

function isRecord(v: unknown): v is ResumeRecord {
  const r = v as ResumeRecord;
  return (
    typeof r === 'object' &&
    r !== null &&
    Number.isInteger(r.transferId) &&
    typeof r.owner === 'string' &&
    Number.isInteger(r.chunkSize) &&
    r.chunkSize > 0 &&
    Array.isArray(r.files) &&
    r.files.every(
      (f) => isSentFile(f) && Number.isInteger(f.fileId) && typeof f.uid === 'string' && typeof f.name === 'string',
    )
  );
}

/** Matches re-selected files to the remembered ones by name, size and modification time. */
export function matchSources<S extends { name: string; size: number; lastModified: number }>(
  record: ResumeRecord,
  chosen: S[],
): Map<number, S> {
  const out = new Map<number, S>();
  for (const f of record.files) {
    // A file first dropped with its folder was sent as "folder/name"; a picker gives back only "name".
    const sameName = (c: S) => c.name === f.name || f.name.endsWith(`/${c.name}`);
    const s = chosen.find((c) => sameName(c) && c.size === f.size && c.lastModified === f.lastModified);
    if (s) out.set(f.fileId, s);
  }
  return out;
}
