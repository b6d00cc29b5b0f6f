import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type http from 'node:http';
import { safeEntryNames } from '../shared/entry-names';
import { ApiError, ClientError } from './errors';
import { describeNetworkError, errorBody, FerryApi, openRequest } from './http';
import { createReporter, reportMode, type Reporter, type ReporterIO } from './progress';
import { DEFAULT_RETRY, parseRetryAfter, retryableNetworkError, retryableStatus, retryDelay, sleep } from './retry';

export interface GetOptions {
  link: string;
  outDir: string;
  json: boolean;
  retries?: number;
}

interface Listing {
  transfer_id: number;
  subject: string;
  from: string;
  files: { id: number; name: string; size: number; sha256: string | null }[];
}

export interface GetResult {
  transfer_id: number;
  subject: string;
  from: string;
  files: { id: number; name: string; path: string; size: number; sha256: string | null; result: 'saved' | 'already there' }[];
}

/** A download link (`{base}/?s=download&token=T`, or a file's `{base}/download?token=T&files_ids=…`) taken apart. */
export function parseDownloadLink(link: string): { base: string; token: string; ids: number[] | null } {
  let u: URL;
  try {
    u = new URL(link.trim());
  } catch {
    throw new ClientError(`not a download link: ${JSON.stringify(link)}`);
  }
  const token = u.searchParams.get('token');
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !token) throw new ClientError('not a download link: it should look like https://host/?s=download&token=…');
  const base = `${u.origin}${u.pathname.replace(/\/(download|download\.php)$/, '').replace(/\/+$/, '')}`;
  const raw = u.searchParams.get('files_ids');
  const ids = raw ? raw.split(',').map(Number).filter((n) => Number.isSafeInteger(n) && n > 0) : null;
  return { base, token, ids: ids && ids.length ? ids : null };
}

/**
 * `ferry get <link> [-o dir]`: saves every file of the link under dir, each under the path the sender gave
 * (made safe: names come from the server and are not trusted), resuming a partial `<name>.part` with Range and
 * keeping the file only when its SHA-256 is the one the server stored.
 */
export async function getFiles(o: GetOptions, io: ReporterIO): Promise<GetResult> {
  const { base, token, ids } = parseDownloadLink(o.link);
  const reporter = createReporter(io, reportMode(io, o.json));
  const retry = o.retries === undefined ? undefined : { ...DEFAULT_RETRY, retries: o.retries };
  const api = new FerryApi({ url: base }, { sockets: 2, retry, onRetry: (n) => reporter.retry(n) });
  try {
    const listing = await api.call<Listing>('GET', '/download/files', { args: { token }, what: 'reading the download link' });
    const wanted = ids ? listing.files.filter((f) => ids.includes(f.id)) : listing.files;
    if (wanted.length === 0) throw new ClientError('the link lists no files');
    const names = safeEntryNames(wanted.map((f) => f.name));
    fs.mkdirSync(o.outDir, { recursive: true });
    const root = fs.realpathSync(o.outDir);
    const total = wanted.reduce((n, f) => n + f.size, 0);
    const results: GetResult['files'] = [];
    const targets = wanted.map((f, i) => ({ f, name: names[i], dest: destination(root, names[i]) }));
    const partials = targets.reduce((n, t) => n + partialSize(t.dest, t.f.size), 0);
    reporter.start(total, partials);
    for (const { f, name, dest } of targets) {
      const result = await downloadOne(api, token, f, dest, name, reporter);
      reporter.fileDone(result, name, f.size);
      results.push({ id: f.id, name: f.name, path: dest, size: f.size, sha256: f.sha256, result });
    }
    reporter.finish();
    return { transfer_id: listing.transfer_id, subject: listing.subject, from: listing.from, files: results };
  } catch (e) {
    reporter.finish();
    throw e;
  } finally {
    api.close();
  }
}

/**
 * Where a file goes: under root, whatever the name says. The name is already free of "..", absolute parts and
 * control characters (safeEntryNames); this also refuses a path that would leave root all the same, and
 * folders on the way that are symbolic links (a link planted in the output folder could point anywhere).
 */
export function destination(root: string, name: string): string {
  const dest = path.resolve(root, ...name.split('/'));
  const rel = path.relative(root, dest);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new ClientError(`refusing to write ${JSON.stringify(name)} outside ${root}`);
  let dir = root;
  for (const part of rel.split(path.sep).slice(0, -1)) {
    dir = path.join(dir, part);
    let st: fs.Stats | null = null;
    try {
      st = fs.lstatSync(dir);
    } catch {
      fs.mkdirSync(dir);
      continue;
    }
    if (!st.isDirectory()) throw new ClientError(`refusing to write ${JSON.stringify(name)}: ${dir} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}`);
  }
  return dest;
}

function partialSize(dest: string, size: number): number {
  try {
    const n = fs.lstatSync(`${dest}.part`).size;
    return n <= size ? n : 0;
  } catch {
    return 0;
  }
}

async function sha256Of(file: string, length: number): Promise<crypto.Hash> {
  const h = crypto.createHash('sha256');
  if (length > 0) await pipeline(fs.createReadStream(file, { start: 0, end: length - 1 }), h, { end: false });
  return h;
}

async function downloadOne(api: FerryApi, token: string, f: Listing['files'][number], dest: string, name: string, reporter: Reporter): Promise<'saved' | 'already there'> {
  const existing = lstatOrNull(dest);
  if (existing) {
    if (existing.isFile() && existing.size === f.size && f.sha256 && (await sha256Of(dest, f.size)).digest('hex') === f.sha256) {
      reporter.advance(f.size, name);
      return 'already there';
    }
    throw new ClientError(`${dest} already exists; remove it or choose another folder with -o`);
  }
  const part = `${dest}.part`;
  // O_NOFOLLOW: a symbolic link planted at the partial file's name is not followed.
  const fd = fs.openSync(part, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o644);
  try {
    let have = fs.fstatSync(fd).size;
    if (have > f.size) {
      fs.ftruncateSync(fd, 0);
      have = 0;
    }
    let hash = await sha256Of(part, have);
    for (let attempt = 0; have < f.size || (f.size === 0 && attempt === 0); attempt++) {
      let reason: string;
      let retryAfter: number | null = null;
      try {
        const res = await get(api, token, f.id, have);
        api.noteDate(res.headers.date);
        if (res.statusCode === 206 || res.statusCode === 200) {
          const start = res.statusCode === 206 ? Number(/^bytes (\d+)-/.exec(String(res.headers['content-range'] ?? ''))?.[1]) : 0;
          if (start !== have) {
            // The server sent from elsewhere than asked (200 for the whole file): start again from there.
            if (start !== 0) throw new ClientError(`the server answered a different range than asked for ${name}`, 2);
            fs.ftruncateSync(fd, 0);
            have = 0;
            hash = crypto.createHash('sha256');
          }
          const counter = new Transform({
            transform(chunk: Buffer, _enc, cb) {
              hash.update(chunk);
              reporter.advance(chunk.length, name);
              cb(null, chunk);
            },
          });
          await pipeline(res, counter, fs.createWriteStream(part, { fd, start: have, autoClose: false }));
          have = fs.fstatSync(fd).size;
          if (have < f.size) throw Object.assign(new Error('the answer ended early'), { code: 'SHORT_BODY' });
          break;
        }
        const body = await readAll(res);
        const err = errorBody({ status: res.statusCode ?? 0, headers: res.headers, body });
        if (!retryableStatus(res.statusCode ?? 0)) throw new ApiError(res.statusCode ?? 0, err.id, err.details, `downloading ${name}`);
        reason = `${res.statusCode} ${err.id}`;
        retryAfter = parseRetryAfter(res.headers['retry-after'] as string | undefined);
      } catch (e) {
        if (e instanceof ClientError) throw e;
        if (!retryableNetworkError(e)) throw new ClientError(`downloading ${name}: ${describeNetworkError(e, api.url)}`, 2);
        reason = describeNetworkError(e, api.url);
        // What reached the disk is what counts: hash it again from the file rather than trust what streamed.
        have = fs.fstatSync(fd).size;
        hash = await sha256Of(part, have);
      }
      if (attempt >= api.retry.retries) throw new ClientError(`downloading ${name}: ${reason} (after ${attempt + 1} attempts)`, 2);
      const delayMs = retryDelay(api.retry, attempt + 1, retryAfter);
      reporter.retry({ what: `downloading ${name}`, reason, attempt: attempt + 1, delayMs });
      await sleep(delayMs);
    }
    fs.fsyncSync(fd);
    const got = hash.digest('hex');
    if (f.sha256 && got !== f.sha256) {
      fs.rmSync(part, { force: true });
      throw new ClientError(`${name}: SHA-256 mismatch (expected ${f.sha256}, got ${got}); the partial file was removed, run the command again to download it anew`, 2);
    }
    if (!f.sha256) reporter.note(`${name}: the server has no SHA-256 for this file, so it could not be checked`);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(part, dest);
  return 'saved';
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

function get(api: FerryApi, token: string, fileId: number, from: number): Promise<http.IncomingMessage> {
  const url = api.signedUrl('GET', '/download', { token, files_ids: fileId }, undefined);
  const headers: Record<string, string> = from > 0 ? { range: `bytes=${from}-` } : {};
  return new Promise((resolve, reject) => {
    const req = openRequest(url, 'GET', headers, api.agent, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function readAll(res: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of res) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
