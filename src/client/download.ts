import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type http from 'node:http';
import { safeEntryNames } from '../shared/entry-names';
import { ApiError, ClientError } from './errors';
import type { Credentials } from './credentials';
import { describeNetworkError, errorBody, FerryApi, openRequest, type RetryNotice } from './http';
import { unusable } from './servers/common';
import { fileSenderLinkFiles, fileSenderSource } from './servers/filesender-download';
import { findServer } from './servers/open';
import { createReporter, reportMode, type Reporter, type ReporterIO } from './progress';
import {
  CHUNK_OVERHEAD,
  chunkCount,
  decryptChunk,
  DecryptError,
  deriveKey,
  encryptChunk,
  fileCrypto,
  type FileCrypto,
} from '../shared-crypto/format';
import {
  DEFAULT_RETRY,
  parseRetryAfter,
  retryableNetworkError,
  retryableStatus,
  retryDelay,
  sleep,
} from '../shared/retry';

export interface GetOptions {
  link: string;
  outDir: string;
  json: boolean;
  retries?: number;
  /** Who the client is on the link's server, if logged in (a FileSender server lists a link's files over REST only to a user). */
  credentials?: () => Credentials | null;
  /** For an encrypted transfer (FERRY_PASSWORD or --password-stdin); asked for only when one is. */
  password?: () => Promise<string | null>;
}

/** A file's entry in GET /transfer/fileidsextended (the encryption fields a recipient needs). */
interface Extended {
  id: number;
  encrypted?: boolean;
  key_salt?: string | null;
  password_version?: number | null;
  password_encoding?: string | null;
  password_hash_iterations?: number | null;
  fileiv?: string | null;
  fileaead?: string | null;
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
  files: {
    id: number;
    name: string;
    path: string;
    size: number;
    sha256: string | null;
    result: 'saved' | 'already there';
    /** How the bytes were checked: the server's SHA-256, or (encrypted) every chunk's AES-GCM tag. */
    verified: 'sha256' | 'aes-gcm' | 'aes-gcm+sha256' | 'none';
  }[];
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
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !token)
    throw new ClientError('not a download link: it should look like https://host/?s=download&token=…');
  const base = `${u.origin}${u.pathname.replace(/\/(download|download\.php)$/, '').replace(/\/+$/, '')}`;
  const raw = u.searchParams.get('files_ids');
  const ids = raw
    ? raw
        .split(',')
        .map(Number)
        .filter((n) => Number.isSafeInteger(n) && n > 0)
    : null;
  return { base, token, ids: ids?.length ? ids : null };
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
  const apiOptions = { sockets: 2, retry, onRetry: (n: RetryNotice) => reporter.retry(n) };
  const { found, probe } = await findServer(base, apiOptions);
  let api = probe;
  let signed: FerryApi | null = null;
  try {
    let listing: Listing;
    let extended: Extended[];
    let source: DownloadSource;
    if (found.kind === 'ferry') {
      api = new FerryApi({ url: found.restUrl }, apiOptions);
      api.copyClock(probe);
      probe.close();
      listing = await api.call<Listing>('GET', '/download/files', {
        args: { token },
        what: 'reading the download link',
      });
      if (!listing || !Array.isArray(listing.files))
        throw unusable('reading the download link', 'GET /download/files', listing, 'has no list of files');
      extended = await api.call<Extended[]>('GET', '/transfer/fileidsextended', {
        args: { token },
        what: 'reading the encryption settings',
      });
      if (!Array.isArray(extended))
        throw unusable('reading the encryption settings', 'GET /transfer/fileidsextended', extended, 'is not a list');
      source = ferrySource(api, token);
    } else {
      const creds = o.credentials?.();
      // Signed only as a user of this very server (the link's site is the one logged in to).
      if (creds && creds.url.replace(/\/rest\.php$/, '') === found.siteUrl) {
        signed = new FerryApi({ ...creds, url: found.restUrl }, apiOptions);
        signed.copyClock(probe);
      }
      const files = await fileSenderLinkFiles(found, token, probe, signed);
      // FileSender keeps no checksum a recipient can read: a plain file is checked by its size.
      listing = {
        transfer_id: files[0]?.transferid ?? 0,
        subject: '',
        from: new URL(found.siteUrl).host,
        files: files.map((f) => ({ id: f.id, name: f.name, size: f.size, sha256: null })),
      };
      extended = files;
      source = fileSenderSource(found.siteUrl, token, probe.agent);
    }
    const wanted = ids ? listing.files.filter((f) => ids.includes(f.id)) : listing.files;
    if (wanted.length === 0) throw new ClientError('the link lists no files');
    const names = safeEntryNames(wanted.map((f) => f.name));
    fs.mkdirSync(o.outDir, { recursive: true });
    const root = fs.realpathSync(o.outDir);
    const total = wanted.reduce((n, f) => n + f.size, 0);
    const results: GetResult['files'] = [];
    const targets = wanted.map((f, i) => ({ f, name: names[i], dest: destination(root, names[i]) }));
    const decrypting = await decryptionFor(extended, o.password);
    const partials = targets.reduce((n, t) => n + partialSize(t.dest, t.f.size), 0);
    reporter.start(total, partials);
    for (const { f, name, dest } of targets) {
      const ext = decrypting?.files.get(f.id);
      if (decrypting && !ext) throw new ClientError(`the server lists no encryption fields for ${name}`, 2);
      const result =
        decrypting && ext
          ? await downloadEncrypted(api, source, f, ext, decrypting.key, dest, name, reporter)
          : await downloadOne(api, source, f, dest, name, reporter);
      reporter.fileDone(result, name, f.size);
      // The server's SHA-256 of an encrypted file is of the ciphertext it stored: the plaintext is checked by its
      // GCM tags, and the ciphertext (as fetched, or sealed again from what an earlier run kept) by that SHA-256.
      const verified = decrypting ? (f.sha256 ? 'aes-gcm+sha256' : 'aes-gcm') : f.sha256 ? 'sha256' : 'none';
      results.push({
        id: f.id,
        name: f.name,
        path: dest,
        size: f.size,
        sha256: decrypting ? null : f.sha256,
        result,
        verified,
      });
    }
    reporter.finish();
    return { transfer_id: listing.transfer_id, subject: listing.subject, from: listing.from, files: results };
  } catch (e) {
    reporter.finish();
    throw e;
  } finally {
    api.close();
    probe.close();
    signed?.close();
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
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel))
    throw new ClientError(`refusing to write ${JSON.stringify(name)} outside ${root}`);
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
    if (!st.isDirectory())
      throw new ClientError(
        `refusing to write ${JSON.stringify(name)}: ${dir} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}`,
      );
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

async function downloadOne(
  api: FerryApi,
  source: DownloadSource,
  f: Listing['files'][number],
  dest: string,
  name: string,
  reporter: Reporter,
): Promise<'saved' | 'already there'> {
  const existing = lstatOrNull(dest);
  if (existing) {
    if (
      existing.isFile() &&
      existing.size === f.size &&
      f.sha256 &&
      (await sha256Of(dest, f.size)).digest('hex') === f.sha256
    ) {
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
        const res = await source.open(f.id, have > 0 ? { from: have, to: null } : null, f.size);
        api.noteDate(res.headers.date);
        if (res.statusCode === 206 || res.statusCode === 200) {
          const start =
            res.statusCode === 206 ? Number(/^bytes (\d+)-/.exec(String(res.headers['content-range'] ?? ''))?.[1]) : 0;
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
        ({ reason, retryAfter } = retryableAnswer(res, await readAll(res), name, source));
      } catch (e) {
        if (e instanceof ClientError) throw e;
        if (!retryableNetworkError(e))
          throw new ClientError(`downloading ${name}: ${describeNetworkError(e, api.url)}`, 2);
        reason = describeNetworkError(e, api.url);
        // What reached the disk is what counts: hash it again from the file rather than trust what streamed.
        have = fs.fstatSync(fd).size;
        hash = await sha256Of(part, have);
      }
      await pauseBeforeRetry(api, reporter, name, attempt, reason, retryAfter);
    }
    fs.fsyncSync(fd);
    const got = hash.digest('hex');
    if (f.sha256 && got !== f.sha256) {
      fs.rmSync(part, { force: true });
      throw new ClientError(
        `${name}: SHA-256 mismatch (expected ${f.sha256}, got ${got}); the partial file was removed, run the command again to download it anew`,
        2,
      );
    }
    if (!f.sha256)
      reporter.note(`${name}: the server keeps no SHA-256 of this file: its size was checked, not its bytes`);
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

async function readAll(res: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of res) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/**
 * An encrypted transfer's key, from the password and the parameters the server lists for the link; null for a
 * plain transfer. Refuses early, before any file is created, when the password is missing.
 */
async function decryptionFor(
  ext: Extended[],
  password: GetOptions['password'],
): Promise<{ key: CryptoKey; files: Map<number, Extended> } | null> {
  const enc = ext.filter((e) => e.encrypted);
  if (enc.length === 0) return null;
  const first = enc[0];
  if (first.key_salt == null || first.password_version == null || first.password_hash_iterations == null)
    throw new ClientError('the server lists incomplete encryption settings for this transfer', 2);
  const given = password ? await password() : null;
  if (given === null)
    throw new ClientError(
      'this transfer is encrypted end to end: give its password in FERRY_PASSWORD or with --password-stdin',
    );
  let key: CryptoKey;
  try {
    key = await deriveKey({
      password: given,
      passwordVersion: first.password_version,
      passwordEncoding: first.password_encoding ?? 'none',
      salt: first.key_salt,
      iterations: first.password_hash_iterations,
    });
  } catch (e) {
    if (e instanceof DecryptError) throw new ClientError(wrongPassword(e));
    throw e;
  }
  return { key, files: new Map(enc.map((e) => [e.id, e])) };
}

function wrongPassword(e: DecryptError): string {
  return e.reason === 'wrong_password'
    ? 'wrong password: it does not decrypt this transfer (nothing was saved)'
    : `cannot decrypt: ${e.reason.replace(/_/g, ' ')}`;
}

/**
 * Downloads an encrypted file chunk by chunk (Range in plaintext-chunk coordinates, docs/encryption.md),
 * decrypting each as it arrives and writing it at its place in `<name>.part`: one chunk in memory at a time.
 * Each chunk's GCM tag authenticates it (and its place: the IV carries the chunk number), so a wrong password
 * or altered bytes stop the download and the partial file is removed. A `.part` from an earlier run holds
 * only chunks that passed; it resumes at its last whole chunk.
 */
async function downloadEncrypted(
  api: FerryApi,
  source: DownloadSource,
  f: Listing['files'][number],
  ext: Extended,
  key: CryptoKey,
  dest: string,
  name: string,
  reporter: Reporter,
): Promise<'saved'> {
  if (lstatOrNull(dest)) throw new ClientError(`${dest} already exists; remove it or choose another folder with -o`);
  let fc: FileCrypto;
  try {
    const aead = JSON.parse(atob(ext.fileaead ?? '')) as { chunksize?: unknown };
    fc = fileCrypto(ext.fileiv ?? '', ext.fileaead ?? '', Number(aead.chunksize));
  } catch (e) {
    throw new ClientError(
      `${name}: ${e instanceof DecryptError ? wrongPassword(e) : 'the server lists a bad IV or AEAD for this file'}`,
      2,
    );
  }
  const S = fc.chunkSize;
  if (!(S > 0) || fc.chunkCount !== chunkCount(f.size, S))
    throw new ClientError(`${name}: the file's AEAD does not match its size`, 2);
  const part = `${dest}.part`;
  const fd = fs.openSync(part, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o644);
  let ok = false;
  try {
    const have = fs.fstatSync(fd).size;
    let index = have <= f.size ? Math.floor(have / S) : 0;
    fs.ftruncateSync(fd, index * S);
    reporter.advance(index * S - Math.min(have, f.size), name);
    const firstInRun = index;
    // The server's SHA-256 is of the ciphertext it stored. Sealing is deterministic (IV = file IV ‖ chunk
    // number), so the plaintext kept from an earlier run, sealed again, must give back those very bytes: the
    // whole file is checked against the server's value, not only the chunks fetched in this run.
    const cipherHash = f.sha256 ? crypto.createHash('sha256') : null;
    if (cipherHash && firstInRun > 0) {
      const buf = Buffer.allocUnsafe(S);
      for (let j = 0; j < firstInRun; j++) {
        let got = 0;
        while (got < S) got += fs.readSync(fd, buf, got, S - got, j * S + got) || fail();
        cipherHash.update(await encryptChunk(key, fc, j, buf));
      }
    }
    for (; index < fc.chunkCount; index++) {
      const start = index * S;
      const plainLength = Math.min(S, f.size - start);
      const stored = await fetchChunk(api, source, f.id, start, plainLength + CHUNK_OVERHEAD, name, reporter, f.size);
      let plain: Uint8Array;
      try {
        plain = await decryptChunk(key, fc, index, stored);
      } catch (e) {
        if (!(e instanceof DecryptError)) throw e;
        // No plaintext stays behind: not this run's, nor what an earlier run saved.
        fs.ftruncateSync(fd, 0);
        if (index === firstInRun && e.reason === 'wrong_password')
          throw new ClientError(`${name}: ${wrongPassword(e)}`, 1);
        throw new ClientError(
          `${name}: chunk ${index} failed its integrity check (${e.reason.replace(/_/g, ' ')}: altered on the server?); the partial file was removed`,
          2,
        );
      }
      if (plain.length !== plainLength)
        throw new ClientError(`${name}: chunk ${index} decrypted to the wrong length`, 2);
      cipherHash?.update(stored);
      let off = 0;
      while (off < plain.length) off += fs.writeSync(fd, plain, off, plain.length - off, start + off);
      reporter.advance(plain.length, name);
    }
    const got = cipherHash?.digest('hex');
    if (got !== undefined && got !== f.sha256) {
      fs.ftruncateSync(fd, 0);
      throw new ClientError(
        `${name}: SHA-256 mismatch of the ciphertext (expected ${f.sha256}, got ${got}); the partial file was removed, run the command again to download it anew`,
        2,
      );
    }
    fs.fsyncSync(fd);
    ok = true;
  } finally {
    fs.closeSync(fd);
    if (!ok && fs.statSync(part, { throwIfNoEntry: false })?.size === 0) fs.rmSync(part, { force: true });
  }
  fs.renameSync(part, dest);
  return 'saved';
}

function fail(): never {
  throw new ClientError('the partial file shrank while it was being checked', 2);
}

/** One stored chunk with Range, retried on the network's and the server's passing failures. */
async function fetchChunk(
  api: FerryApi,
  source: DownloadSource,
  fileId: number,
  start: number,
  length: number,
  name: string,
  reporter: Reporter,
  size: number,
): Promise<Uint8Array> {
  for (let attempt = 0; ; attempt++) {
    let reason: string;
    let retryAfter: number | null = null;
    try {
      const res = await source.open(fileId, { from: start, to: start + length - 1 }, size);
      api.noteDate(res.headers.date);
      const body = await readAll(res);
      if (res.statusCode === 206) {
        if (body.length !== length) throw Object.assign(new Error('the answer ended early'), { code: 'SHORT_BODY' });
        return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      }
      ({ reason, retryAfter } = retryableAnswer(res, body, name, source));
    } catch (e) {
      if (e instanceof ClientError) throw e;
      if (!retryableNetworkError(e))
        throw new ClientError(`downloading ${name}: ${describeNetworkError(e, api.url)}`, 2);
      reason = describeNetworkError(e, api.url);
    }
    await pauseBeforeRetry(api, reporter, name, attempt, reason, retryAfter);
  }
}

/** An error answer to a download: thrown when asking again cannot help, else why and how long the server asks to wait. */
function retryableAnswer(
  res: http.IncomingMessage,
  body: Buffer,
  name: string,
  source: DownloadSource,
): { reason: string; retryAfter: number | null } {
  const err = errorBody({ status: res.statusCode ?? 0, headers: res.headers, body });
  if (!retryableStatus(res.statusCode ?? 0) || source.final?.(res.statusCode ?? 0))
    throw new ApiError(res.statusCode ?? 0, err.id, err.details, `downloading ${name}`);
  return {
    reason: `${res.statusCode} ${err.id}`,
    retryAfter: parseRetryAfter(res.headers['retry-after'] as string | undefined),
  };
}

/** Gives up after the configured retries; else reports the retry and waits the backoff (or the server's Retry-After). */
async function pauseBeforeRetry(
  api: FerryApi,
  reporter: Reporter,
  name: string,
  attempt: number,
  reason: string,
  retryAfter: number | null,
): Promise<void> {
  if (attempt >= api.retry.retries)
    throw new ClientError(`downloading ${name}: ${reason} (after ${attempt + 1} attempts)`, 2);
  const delayMs = retryDelay(api.retry, attempt + 1, retryAfter);
  reporter.retry({ what: `downloading ${name}`, reason, attempt: attempt + 1, delayMs });
  await sleep(delayMs);
}

/** Where a file's bytes come from: ferry's GET /download, or FileSender's download.php (servers/filesender-download.ts). */
export interface DownloadSource {
  /** GET of one file, whole or from..to (inclusive; to null: to its end). */
  open(fileId: number, range: { from: number; to: number | null } | null, size: number): Promise<http.IncomingMessage>;
  /** An error status not worth asking again, though it is a 5xx. */
  final?: (status: number) => boolean;
}

/** ferry's GET {base}/download?token=…&files_ids=…, with Range as asked. */
export function ferrySource(api: FerryApi, token: string): DownloadSource {
  return {
    open(fileId, range) {
      const url = api.signedUrl('GET', '/download', { token, files_ids: fileId }, undefined);
      const headers: Record<string, string> = range ? { range: `bytes=${range.from}-${range.to ?? ''}` } : {};
      return new Promise((resolve, reject) => {
        const req = openRequest(url, 'GET', headers, api.agent, resolve);
        req.on('error', reject);
        req.end();
      });
    },
  };
}
