import { isRangeList, Range } from './ranges';
import type { RecordEncryption } from './encryption';

/**
 * What the page remembers of an unfinished upload so that it survives a reload or a browser restart. Only
 * facts the server gave and the byte ranges it acknowledged are kept; the file data is asked for again and
 * matched by name, size and modification time.
 */
export interface ResumeFile {
  fileId: number;
  uid: string;
  name: string;
  size: number;
  lastModified: number;
  /** Ranges the server acknowledged (each one a finished chunk PUT). */
  acked: Range[];
  complete: boolean;
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

const KEY = 'ferry.unfinished-uploads';

export class StorageResumeStore implements ResumeStore {
  constructor(private readonly kv: KeyValue) {}

  private all(): ResumeRecord[] {
    try {
      const parsed: unknown = JSON.parse(this.kv.getItem(KEY) ?? '[]');
      return Array.isArray(parsed) ? parsed.filter(isRecord) : [];
    } catch {
      return [];
    }
  }

  private write(records: ResumeRecord[]): void {
    try {
      if (records.length) this.kv.setItem(KEY, JSON.stringify(records));
      else this.kv.removeItem(KEY);
    } catch {
      // Storage full or disabled (private mode): the upload goes on, it just cannot be resumed after a reload.
    }
  }

  list(owner: string): ResumeRecord[] {
    return this.all().filter((r) => r.owner === owner);
  }

  save(record: ResumeRecord): void {
    this.write([...this.all().filter((r) => r.transferId !== record.transferId), record]);
  }

  remove(transferId: number): void {
    this.write(this.all().filter((r) => r.transferId !== transferId));
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
      (f) =>
        Number.isInteger(f.fileId) && typeof f.uid === 'string' && typeof f.name === 'string' && isRangeList(f.acked),
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
