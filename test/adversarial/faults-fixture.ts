import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { asUser, HEADER_SP, request, TestResponse } from '../helpers/server';

// The crash tests run the built binary: a SIGKILL must hit the real process, its SQLite file and its disk.
export const SP = HEADER_SP;
export const alice = asUser('alice');

/** A seeded generator, so a failing round can be replayed from the seed printed with it. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens the DB file a killed server left, as a new process would, and insists SQLite finds it sound. */
export function openChecked(dir: string): Database.Database {
  const db = new Database(path.join(dir, 'data', 'ferry.db'));
  db.pragma('busy_timeout = 5000');
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok', 'integrity_check after the crash');
  assert.equal(db.pragma('foreign_key_check'), [], 'foreign keys after the crash');
  return db;
}

export function fileOnDisk(dir: string, transferId: number, uid: string): string {
  return path.join(dir, 'data', 'files', String(transferId), uid);
}

export async function createTransfer(
  url: string,
  files: { name: string; size: number }[],
  recipients: string[],
  options: string[] = [],
  expires = Math.floor(Date.now() / 1000) + 7 * 86400,
) {
  const r = await request(url, 'POST', '/transfer', {
    headers: alice,
    json: { files, recipients, from: 'alice@example.org', expires, options },
  });
  assert.is(r.status, 201, r.text);
  return r.json;
}

export function putChunk(
  url: string,
  fileId: number,
  data: Buffer,
  offset: number,
  size: number,
): Promise<TestResponse> {
  return request(url, 'PUT', `/file/${fileId}/chunk/${offset}`, {
    body: data.subarray(offset, offset + size),
    headers: {
      ...alice,
      'content-type': 'application/octet-stream',
      'X-Service-File-Size': String(data.length),
      'X-Service-Chunk-Size': String(size),
    },
  });
}

/** Uploads every chunk of `data`, a few at a time; each must be acknowledged. */
export async function uploadWhole(url: string, fileId: number, data: Buffer, chunk: number): Promise<void> {
  const offsets = Array.from({ length: Math.ceil(data.length / chunk) }, (_, i) => i * chunk);
  const worker = async () => {
    for (let off = offsets.shift(); off !== undefined; off = offsets.shift()) {
      const r = await putChunk(url, fileId, data, off, Math.min(chunk, data.length - off));
      assert.is(r.status, 200, r.text);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
}

/** Bytes fetched through the public download link, as a recipient would get them. */
export async function download(url: string, token: string, fileId: number): Promise<Buffer> {
  const res = await fetch(`${url}/download?token=${token}&files_ids=${fileId}`, {
    signal: AbortSignal.timeout(30_000),
  });
  assert.is(res.status, 200, `download of file ${fileId}`);
  return Buffer.from(await res.arrayBuffer());
}

/** Names under data/files/: transfer directories and the files in each. */
export function filesTree(dir: string): Map<number, string[]> {
  const root = path.join(dir, 'data', 'files');
  const out = new Map<number, string[]>();
  for (const d of fs.existsSync(root) ? fs.readdirSync(root) : []) {
    if (!/^\d+$/.test(d)) continue;
    try {
      out.set(Number(d), fs.readdirSync(path.join(root, d)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e; // removed while we looked (a purge running)
    }
  }
  return out;
}
