import { encryptionRequestFields } from '../shared-crypto/format';
import type { Range } from '../shared/chunks';
import { clientConfigDir, type Credentials } from './credentials';
import { ApiError, ClientError } from './errors';
import { FerryApi } from './http';
import { DEFAULT_RETRY } from './retry';
import { createReporter, humanBytes, reportMode, type ReporterIO } from './progress';
import { ResumeStore, resumeKey, type ResumeRecord } from './resume-store';
import { collectSources, mimeTypeOf, type SourceFile } from './sources';
import { uploadFiles, type UploadFile } from './upload';
import {
  checkPasswordRules,
  iterationsFrom,
  keyCheck,
  keyFor,
  newFileSeal,
  sealerFor,
  type PasswordChoice,
  type RecordEncryption,
} from './encryption';
import path from 'node:path';

export interface SendOptions {
  paths: string[];
  recipients: string[];
  subject?: string;
  message?: string;
  days?: number;
  link: boolean;
  /** Downloads of each file allowed through each link (ferry's extension, docs/sharing.md); absent: none. */
  downloadLimit?: number;
  /** The sender address; default the account's first. */
  from?: string;
  parallel: number;
  json: boolean;
  /** Further attempts of a failing request (default DEFAULT_RETRY's). */
  retries?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** End-to-end encryption with this password (typed or generated); absent: a plain transfer. */
  encrypt?: PasswordChoice;
  /** Told a generated password once the transfer exists (before any chunk is sent). */
  onGeneratedPassword?: (password: string) => void;
}

interface ServerFile {
  id: number;
  name: string;
  size: number;
  cid?: string;
  ranges?: Range[];
  complete?: boolean;
}
interface ServerTransfer {
  id: number;
  salt?: string;
  status?: string;
  expires?: { raw: number } | null;
  files: ServerFile[];
  recipients: { email: string; download_url: string }[];
}
interface Info {
  [k: string]: unknown;
  encryption_enabled?: boolean;
  upload_chunk_size?: number;
  default_transfer_days_valid?: number;
  max_transfer_days_valid?: number;
  default_guest_days_valid?: number;
}
interface Me {
  id: string;
  email?: string[];
}

export interface SendResult {
  transfer_id: number;
  status: string;
  expires: number | null;
  recipients: string[];
  link: string | null;
  files: { id: number; name: string; size: number }[];
  resumed: boolean;
  chunks_sent: number;
  bytes_sent: number;
  seconds: number;
  /** Encrypted: true; with a generated password, `password` is it (shown this once, never sent to the server). */
  encrypted: boolean;
  password?: string;
}

const DEFAULT_CHUNK = 5 * 1024 * 1024;

/** The sender's address: --from, else the account's first, else a clear refusal. */
async function senderAddress(api: FerryApi, given: string | undefined): Promise<string> {
  if (given) return given;
  const me = await api.call<Me>('GET', '/user', { what: 'reading your account' });
  const email = me.email?.[0];
  if (!email) throw new ClientError('your account has no e-mail address on the server: give one with --from');
  return email;
}

function expiryIn(api: FerryApi, days: number | undefined, fallback: number | undefined, max: number | undefined): number {
  let d = days ?? fallback ?? 10;
  if (days === undefined && max !== undefined) d = Math.min(d, max);
  return api.serverNow() + Math.round(d * 86400);
}

/**
 * `ferry send`: creates a Transfer of the files (or finds the one a killed run of the same command began),
 * sends what the server lacks, completes every file and then the Transfer, which mails the recipients (or,
 * with --link, makes a download link).
 */
export async function sendFiles(creds: Credentials, o: SendOptions, io: ReporterIO): Promise<SendResult> {
  const started = Date.now();
  const { files, skipped } = collectSources(o.paths, o.cwd);
  if (files.length === 0) throw new ClientError('nothing to send: the folders given hold no files');
  if (!o.link && o.recipients.length === 0) throw new ClientError('no recipients: give -r a@example.org[,b@example.org] or --link');
  if (o.link && o.recipients.length > 0) throw new ClientError('--link makes a download link instead of mailing recipients: give -r or --link, not both');
  const reporter = createReporter(io, reportMode(io, o.json));
  for (const s of skipped) reporter.note(`skipped ${s}`);
  const retry = o.retries === undefined ? undefined : { ...DEFAULT_RETRY, retries: o.retries };
  const api = new FerryApi(creds, { sockets: o.parallel + 2, retry, onRetry: (n) => reporter.retry(n) });
  try {
    const info = await api.call<Info>('GET', '/info', { what: 'reading the server settings' });
    const chunkSize = Number.isSafeInteger(info.upload_chunk_size) && info.upload_chunk_size! > 0 ? info.upload_chunk_size! : DEFAULT_CHUNK;
    const enc = o.encrypt;
    if (enc) {
      if (info.encryption_enabled === false) throw new ClientError('this server does not offer end-to-end encryption: send without --encrypt');
    }
    const from = await senderAddress(api, o.from);
    const terms = { recipients: o.recipients, subject: o.subject ?? '', message: o.message ?? '', days: o.days ?? null, link: o.link, from, encrypt: !!enc };
    const store = new ResumeStore(path.join(clientConfigDir(o.env), 'uploads'));
    store.prune();
    const key = resumeKey({ url: creds.url, user: creds.user, files, terms });

    let record0 = store.load(key);
    let sealer: ((s: NonNullable<UploadFile['seal']>, i: number, p: Uint8Array) => Promise<Buffer>) | undefined;
    if (enc && record0) {
      const e = record0.encryption;
      const k = e ? await keyFor(enc.password, e) : null;
      if (!e || !k || (await keyCheck(k)) !== e.keyCheck) {
        // A generated password is new on every run: the interrupted transfer's key is gone with it, so it starts anew.
        if (!enc.generated) throw new ClientError('the password is not the one the interrupted send of these files began with: give that one again (or remove the record under ~/.config/ferry/uploads to start anew)');
        reporter.note('the interrupted send of these files used another generated password: starting a new transfer');
        record0 = null;
      } else sealer = sealerFor(k);
    }
    const resumed = await resumeTransfer(api, record0, files);
    let transfer: ServerTransfer;
    let uploads: UploadFile[];
    if (resumed?.done) {
      transfer = resumed.transfer;
      uploads = [];
    } else if (resumed) {
      transfer = resumed.transfer;
      uploads = resumed.uploads;
    } else {
      // Only for a new transfer: on a resume the key check value has shown it is the password it began with.
      if (enc) checkPasswordRules(enc, info);
      const iterations = iterationsFrom(info);
      const seals = enc ? files.map((f) => newFileSeal(f.size, chunkSize)) : null;
      transfer = await api.call<ServerTransfer>('POST', '/transfer', {
        json: {
          ...(enc ? encryptionRequestFields(enc, iterations) : {}),
          files: files.map((f, i) => ({ name: f.name, size: f.size, mime_type: mimeTypeOf(f.name), cid: String(i), ...(seals ? seals[i] : {}) })),
          recipients: o.recipients,
          options: o.link ? ['get_a_link'] : [],
          expires: expiryIn(api, o.days, info.default_transfer_days_valid, info.max_transfer_days_valid),
          from,
          subject: o.subject ?? '',
          message: o.message ?? '',
          ...(o.downloadLimit !== undefined ? { download_limit: o.downloadLimit } : {}),
        },
        what: 'creating the transfer',
      });
      const byCid = new Map(transfer.files.map((f) => [f.cid, f]));
      uploads = files.map((src, i) => {
        const f = byCid.get(String(i)) ?? transfer.files[i];
        if (!f || f.size !== src.size) throw new ClientError(`the server's answer does not list ${src.name}`, 2);
        return { fileId: f.id, name: src.name, path: src.path, size: src.size, mtimeMs: src.mtimeMs, ranges: [], complete: false, ...(seals ? { seal: seals[i] } : {}) };
      });
      let encryption: RecordEncryption | undefined;
      if (enc && seals) {
        // The key needs the salt the server made for this transfer, so it is derived only now.
        if (typeof transfer.salt !== 'string' || transfer.salt === '') throw new ClientError('the server did not return a salt for the encrypted transfer', 2);
        const params = { salt: transfer.salt, iterations, passwordVersion: enc.passwordVersion, passwordEncoding: enc.passwordEncoding };
        const k = await keyFor(enc.password, params);
        encryption = { ...params, keyCheck: await keyCheck(k), files: seals };
        sealer = sealerFor(k);
        // Shown now, not at the end: a send killed later can be resumed with it (in FERRY_PASSWORD).
        if (enc.generated) o.onGeneratedPassword?.(enc.password);
      }
      const record: ResumeRecord = {
        version: 1,
        url: creds.url,
        user: creds.user,
        transferId: transfer.id,
        created: Date.now(),
        files: uploads.map((u) => ({ name: u.name, size: u.size, fileId: u.fileId })),
        ...(encryption ? { encryption } : {}),
      };
      store.save(key, record);
    }

    const total = files.reduce((n, f) => n + f.size, 0);
    const already = uploads.reduce((n, u) => n + (u.complete ? u.size : covered(u.ranges, u.size)), 0);
    if (resumed && !resumed.done) reporter.note(`resuming transfer ${transfer.id}: ${humanBytes(already)} of ${humanBytes(total)} already on the server`);
    reporter.start(total, resumed?.done ? total : already);
    const stats = await uploadFiles(api, uploads, { chunkSize, parallel: o.parallel, reporter, seal: sealer });
    if (!resumed?.done) {
      transfer = await api.call<ServerTransfer>('PUT', `/transfer/${transfer.id}`, { json: { complete: true }, what: 'completing the transfer' });
    }
    store.remove(key);
    reporter.finish();
    const link = o.link ? (transfer.recipients.find((r) => !r.email)?.download_url ?? transfer.recipients[0]?.download_url ?? null) : null;
    return {
      transfer_id: transfer.id,
      status: transfer.status ?? 'available',
      expires: transfer.expires?.raw ?? null,
      recipients: transfer.recipients.map((r) => r.email).filter(Boolean),
      link,
      files: uploads.length ? uploads.map((u) => ({ id: u.fileId, name: u.name, size: u.size })) : transfer.files.map((f) => ({ id: f.id, name: f.name, size: f.size })),
      resumed: resumed !== null,
      chunks_sent: stats.chunksSent,
      bytes_sent: stats.bytesSent,
      seconds: (Date.now() - started) / 1000,
      encrypted: !!enc,
      ...(enc?.generated ? { password: enc.password } : {}),
    };
  } catch (e) {
    reporter.finish();
    throw e;
  } finally {
    api.close();
  }
}

function covered(ranges: Range[], size: number): number {
  return Math.min(size, ranges.reduce((n, [a, b]) => n + (b - a), 0));
}

/**
 * The Transfer a killed run of the same command began, with what the server already has of each file; null
 * when there is none to carry on (no record, or the Transfer is gone, closed or no longer matches the files).
 */
async function resumeTransfer(
  api: FerryApi,
  record: ResumeRecord | null,
  files: SourceFile[],
): Promise<{ done: boolean; transfer: ServerTransfer; uploads: UploadFile[] } | null> {
  if (!record || record.url !== api.creds?.url || record.user !== api.creds?.user || record.files.length !== files.length) return null;
  let t: ServerTransfer;
  try {
    t = await api.call<ServerTransfer>('GET', `/transfer/${record.transferId}`, { what: 'looking up the unfinished transfer' });
  } catch (e) {
    if (e instanceof ApiError && e.status < 500) return null;
    throw e;
  }
  // Killed after the Transfer was completed but before the record went: it was sent, nothing is left to do.
  if (t.status === 'available') return { done: true, transfer: t, uploads: [] };
  if (t.status !== 'created' && t.status !== 'started' && t.status !== 'uploading') return null;
  const uploads: UploadFile[] = [];
  for (let i = 0; i < files.length; i++) {
    const src = files[i];
    const r = record.files[i];
    const f = t.files.find((x) => x.id === r.fileId);
    if (!f || r.name !== src.name || r.size !== src.size || f.size !== src.size) return null;
    const seal = record.encryption?.files[i];
    if (record.encryption && !seal) return null;
    uploads.push({ fileId: f.id, name: src.name, path: src.path, size: src.size, mtimeMs: src.mtimeMs, ranges: f.ranges ?? [], complete: f.complete === true, ...(seal ? { seal } : {}) });
  }
  return { done: false, transfer: t, uploads };
}
