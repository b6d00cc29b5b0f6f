import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from './credentials';
import type { RecordStorage } from '../shared/resume';
import type { RecordEncryption } from './encryption';
import type { SourceFile } from './sources';

/**
 * What `ferry send` needs to carry on after it was killed or lost the network: which Transfer it created and
 * which File each local file became. What has arrived is asked from the server (a File's `ranges`), never
 * kept here, so a record cannot make the client skip bytes the server does not have. Records are kept with the
 * web page's bookkeeping (src/shared/resume.ts), one file each in a private folder.
 */
export interface ResumeRecord {
  version: 1;
  url: string;
  user: string;
  transferId: number;
  created: number;
  files: { name: string; size: number; fileId: number }[];
  /** An encrypted send: the server's parameters, each file's IV and AEAD, and a key check value; never the password or key. */
  encryption?: RecordEncryption;
  /**
   * Kept only for a server that does not tell what it holds (FileSender): each file's byte ranges whose chunks
   * it acknowledged, the files it completed, and its round-trip token for the transfer (the server gives it once).
   */
  stored?: [number, number][][];
  completed?: number[];
  roundtripToken?: string;
}

/** The server purges Transfers never made available after 7 days; their records go a day later. */
const KEEP_MS = 8 * 86400 * 1000;

/**
 * The same command on the same files (same paths, sizes and modification times, same recipients, subject,
 * message and options) has the same key, so a rerun finds the Transfer its killed run began. A changed file
 * makes another key: its bytes on the server would no longer be the file's.
 */
export function resumeKey(parts: { url: string; user: string; files: SourceFile[]; terms: unknown }): string {
  const files = parts.files.map((f) => [f.path, f.name, f.size, Math.round(f.mtimeMs)]);
  return crypto
    .createHash('sha256')
    .update(JSON.stringify([parts.url, parts.user, files, parts.terms]))
    .digest('hex')
    .slice(0, 32);
}

/** The records as files of a folder, `<key>.json`, readable by their owner only. */
export class DirectoryStorage implements RecordStorage {
  constructor(private readonly dir: string) {}

  private file(key: string): string {
    return path.join(this.dir, `${key}.json`);
  }

  read(key: string): string | null {
    try {
      return fs.readFileSync(this.file(key), 'utf8');
    } catch {
      return null;
    }
  }

  write(key: string, text: string): void {
    writePrivateFile(this.file(key), `${text}\n`);
  }

  remove(key: string): void {
    fs.rmSync(this.file(key), { force: true });
  }

  keys(): string[] {
    try {
      return fs
        .readdirSync(this.dir)
        .filter((n) => n.endsWith('.json'))
        .map((n) => n.slice(0, -'.json'.length));
    } catch {
      return [];
    }
  }

  /** Drops records of Transfers the server has purged by now (last written more than KEEP_MS ago). */
  prune(now = Date.now()): void {
    for (const key of this.keys()) {
      const f = this.file(key);
      try {
        if (now - fs.statSync(f).mtimeMs > KEEP_MS) fs.rmSync(f, { force: true });
      } catch {
        /* gone meanwhile */
      }
    }
  }
}

export function isResumeRecord(v: unknown): v is ResumeRecord {
  const r = v as ResumeRecord;
  return !!r && r.version === 1 && Number.isInteger(r.transferId) && Array.isArray(r.files);
}
