import path from 'node:path';
import { encryptionRequestFields } from '../shared-crypto/format';
import { reconcile, ResumeBook, sentBytes } from '../shared/resume';
import { clientConfigDir, type Credentials } from './credentials';
import {
  checkPasswordRules,
  keyCheck,
  keyFor,
  newFileSeal,
  sealerFor,
  type PasswordChoice,
  type RecordEncryption,
} from './encryption';
import { ApiError, ClientError } from './errors';
import { createReporter, humanBytes, reportMode, type Reporter, type ReporterIO } from './progress';
import { DirectoryStorage, isResumeRecord, resumeKey, type ResumeRecord } from './resume-store';
import { DEFAULT_RETRY } from '../shared/retry';
import { openSendServer } from './servers/open';
import type { SendServer, ServerSettings, ServerTransfer } from './servers/server';
import { collectSources, mimeTypeOf, type SourceFile } from './sources';
import { uploadFiles, type UploadFile } from './upload';

export interface SendOptions {
  paths: string[];
  recipients: string[];
  subject?: string;
  message?: string;
  days?: number;
  link: boolean;
  /** Downloads of each file allowed through each link (ferry's extension, docs/sharing.md); absent: none. */
  downloadLimit?: number;
  /** The sender address; default the account's first (ferry) or the user id when it is an address (FileSender). */
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
  /** The kind of server: ferry or FileSender. */
  server: string;
}

type Sealer = (s: NonNullable<UploadFile['seal']>, i: number, p: Uint8Array) => Promise<Buffer>;

/** The server's limits, checked before anything is created: one message instead of a refusal halfway. */
export function checkLimits(
  files: SourceFile[],
  s: ServerSettings,
  days: number | undefined,
  encrypted: boolean,
): void {
  if (s.maxFiles !== null && files.length > s.maxFiles)
    throw new ClientError(`this server takes at most ${s.maxFiles} files in a transfer; these are ${files.length}`);
  const total = files.reduce((n, f) => n + f.size, 0);
  if (s.maxTransferSize !== null && total > s.maxTransferSize)
    throw new ClientError(
      `this server takes at most ${humanBytes(s.maxTransferSize)} in a transfer; these files are ${humanBytes(total)}`,
    );
  const perFile = encrypted ? s.maxEncryptedFileSize : s.maxFileSize;
  const big = perFile !== null ? files.find((f) => f.size > perFile) : undefined;
  if (big && perFile !== null)
    throw new ClientError(
      `this server takes files of at most ${humanBytes(perFile)}${encrypted ? ' encrypted' : ''}; ${big.name} is ${humanBytes(big.size)}`,
    );
  if (days !== undefined && s.maxDays !== null && days > s.maxDays)
    throw new ClientError(`--days: this server keeps transfers at most ${s.maxDays} days`);
}

function expiryIn(server: SendServer, days: number | undefined, s: ServerSettings): number {
  let d = days ?? s.defaultDays ?? 10;
  if (days === undefined && s.maxDays !== null) d = Math.min(d, s.maxDays);
  return server.api.serverNow() + Math.round(d * 86400);
}

/**
 * `ferry send`: creates a Transfer of the files (or finds the one a killed run of the same command began),
 * sends what the server lacks, completes every file and then the Transfer, which mails the recipients (or,
 * with --link, makes a download link). The server is ferry or FileSender (servers/).
 */
export async function sendFiles(creds: Credentials, o: SendOptions, io: ReporterIO): Promise<SendResult> {
  const started = Date.now();
  const { files, skipped } = collectSources(o.paths, o.cwd);
  if (files.length === 0) throw new ClientError('nothing to send: the folders given hold no files');
  if (!o.link && o.recipients.length === 0)
    throw new ClientError('no recipients: give -r a@example.org[,b@example.org] or --link');
  if (o.link && o.recipients.length > 0)
    throw new ClientError('--link makes a download link instead of mailing recipients: give -r or --link, not both');
  const reporter = createReporter(io, reportMode(io, o.json));
  for (const s of skipped) reporter.note(`skipped ${s}`);
  const retry = o.retries === undefined ? undefined : { ...DEFAULT_RETRY, retries: o.retries };
  let server: SendServer | null = null;
  try {
    server = await openSendServer(creds, { sockets: o.parallel + 2, retry, onRetry: (n) => reporter.retry(n) });
    const settings = server.settings();
    const chunkSize = settings.chunkSize;
    const enc = o.encrypt;
    if (!enc && settings.encryption.mandatory)
      throw new ClientError('this server takes encrypted transfers only: send with --encrypt');
    if (enc && !settings.encryption.enabled)
      throw new ClientError('this server does not offer end-to-end encryption: send without --encrypt');
    if (enc && settings.encryption.unsupported)
      throw new ClientError(
        `this server encrypts in a way ferry does not: ${settings.encryption.unsupported}; send without --encrypt`,
      );
    checkLimits(files, settings, o.days, !!enc);
    const from = await server.senderAddress(o.from);
    const terms = {
      recipients: o.recipients,
      subject: o.subject ?? '',
      message: o.message ?? '',
      days: o.days ?? null,
      link: o.link,
      from,
      encrypt: !!enc,
    };
    const records = new DirectoryStorage(path.join(clientConfigDir(o.env), 'uploads'));
    records.prune();
    const store = new ResumeBook(records, isResumeRecord);
    const key = resumeKey({ url: creds.url, user: creds.user, files, terms });

    let record = store.load(key);
    let sealer: Sealer | undefined;
    if (enc && record) {
      const e = record.encryption;
      const k = e ? await keyFor(enc.password, e) : null;
      if (!e || !k || (await keyCheck(k)) !== e.keyCheck) {
        // A generated password is new on every run: the interrupted transfer's key is gone with it, so it starts anew.
        if (!enc.generated)
          throw new ClientError(
            'the password is not the one the interrupted send of these files began with: give that one again (or remove the record under ~/.config/ferry/uploads to start anew)',
          );
        reporter.note('the interrupted send of these files used another generated password: starting a new transfer');
        record = null;
      } else sealer = sealerFor(k);
    }
    let resumed = await resumeTransfer(server, record, files, reporter);
    const begin = async () => {
      // Only for a new transfer: on a resume the key check value has shown it is the password it began with.
      if (enc) checkPasswordRules(enc, settings.encryption.rules);
      const made = await createTransfer(server!, files, o, settings, from, enc);
      sealer = made.sealer;
      store.save(key, made.record);
      return made;
    };
    let transfer: ServerTransfer;
    let uploads: UploadFile[];
    let current: ResumeRecord;
    if (resumed) {
      ({ transfer, uploads } = resumed);
      current = record!;
    } else {
      ({ transfer, uploads, record: current } = await begin());
    }

    const total = files.reduce((n, f) => n + f.size, 0);
    const stats = { chunksSent: 0, bytesSent: 0 };
    for (let attempt = 0; ; attempt++) {
      const already = uploads.reduce((n, u) => n + sentBytes(u), 0);
      if (resumed)
        reporter.note(
          `resuming transfer ${transfer.id}: ${humanBytes(already)} of ${humanBytes(total)} already on the server`,
        );
      reporter.start(total, already);
      const keep = keeper(server, store, key, current, uploads);
      try {
        const s = await uploadFiles(server, uploads, {
          chunkSize,
          parallel: o.parallel,
          reporter,
          seal: sealer,
          ...keep,
        });
        stats.chunksSent += s.chunksSent;
        stats.bytesSent += s.bytesSent;
        break;
      } catch (e) {
        // A run that stops on an error keeps every acknowledgement it had, for the next run.
        keep.flush?.();
        // FileSender refuses chunks for a transfer that is no longer uploading; its answers cannot say so before.
        if (!(resumed && attempt === 0 && e instanceof ApiError && e.id === 'cannot_add_data_to_complete_transfer'))
          throw e;
        reporter.note(
          `the server no longer takes data for transfer ${transfer.id} (${e.id}): starting over with a new transfer`,
        );
        await discard(server, transfer.id, reporter);
        store.remove(key);
        resumed = null;
        ({ transfer, uploads, record: current } = await begin());
      }
    }
    if (!resumed?.done) transfer = await server.completeTransfer(transfer.id);
    store.remove(key);
    reporter.finish();
    const link = o.link
      ? (transfer.recipients.find((r) => !r.email)?.download_url ?? transfer.recipients[0]?.download_url ?? null)
      : null;
    return {
      transfer_id: transfer.id,
      // A server that scans for viruses releases the transfer once every file is clean.
      status: transfer.virus_scan?.status === 'checking' ? 'checking' : (transfer.status ?? 'available'),
      expires: transfer.expires?.raw ?? null,
      recipients: transfer.recipients.map((r) => r.email).filter(Boolean),
      link,
      files: uploads.map((u) => ({ id: u.fileId, name: u.name, size: u.size })),
      resumed: resumed !== null,
      chunks_sent: stats.chunksSent,
      bytes_sent: stats.bytesSent,
      seconds: (Date.now() - started) / 1000,
      encrypted: !!enc,
      ...(enc?.generated ? { password: enc.password } : {}),
      server: server.kind === 'ferry' ? 'ferry' : 'FileSender',
    };
  } catch (e) {
    reporter.finish();
    throw e;
  } finally {
    server?.api.close();
  }
}

/** POST /transfer for the files; the resume record of the new transfer, and the sealer of an encrypted one. */
async function createTransfer(
  server: SendServer,
  files: SourceFile[],
  o: SendOptions,
  s: ServerSettings,
  from: string,
  enc: PasswordChoice | undefined,
) {
  const iterations = s.encryption.iterations;
  const seals = enc ? files.map((f) => newFileSeal(f.size, s.chunkSize)) : null;
  const transfer = await server.createTransfer({
    ...(enc ? { encryption: encryptionRequestFields(enc, iterations) } : {}),
    files: files.map((f, i) => ({
      name: f.name,
      size: f.size,
      mime_type: mimeTypeOf(f.name),
      cid: String(i),
      ...(seals ? seals[i] : {}),
    })),
    recipients: o.recipients,
    link: o.link,
    expires: expiryIn(server, o.days, s),
    from,
    subject: o.subject ?? '',
    message: o.message ?? '',
    ...(o.downloadLimit !== undefined ? { downloadLimit: o.downloadLimit } : {}),
  });
  const byCid = new Map(transfer.files.map((f) => [f.cid, f]));
  const byName = new Map(transfer.files.map((f) => [f.name, f]));
  const uploads: UploadFile[] = files.map((src, i) => {
    const f = byCid.get(String(i)) ?? byName.get(src.name);
    if (!f || f.size !== src.size)
      throw new ClientError(
        `creating the transfer: the answer to POST /transfer does not list ${src.name} (${src.size} bytes)`,
        2,
      );
    return {
      fileId: f.id,
      name: src.name,
      path: src.path,
      size: src.size,
      mtimeMs: src.mtimeMs,
      acked: [],
      complete: false,
      ...(seals ? { seal: seals[i] } : {}),
    };
  });
  let encryption: RecordEncryption | undefined;
  let sealer: Sealer | undefined;
  if (enc && seals) {
    // The key needs the salt the server made for this transfer, so it is derived only now.
    if (typeof transfer.salt !== 'string' || transfer.salt === '')
      throw new ClientError(
        'creating the transfer: the answer to POST /transfer has no salt for the encrypted transfer',
        2,
      );
    const params = {
      salt: transfer.salt,
      iterations,
      passwordVersion: enc.passwordVersion,
      passwordEncoding: enc.passwordEncoding,
    };
    const k = await keyFor(enc.password, params);
    encryption = { ...params, keyCheck: await keyCheck(k), files: seals };
    sealer = sealerFor(k);
    // Shown now, not at the end: a send killed later can be resumed with it (in FERRY_PASSWORD).
    if (enc.generated) o.onGeneratedPassword?.(enc.password);
  }
  const record: ResumeRecord = {
    version: 1,
    url: server.api.url,
    user: server.api.creds?.user ?? '',
    transferId: transfer.id,
    created: Date.now(),
    files: uploads.map((u) => ({ name: u.name, size: u.size, fileId: u.fileId })),
    ...(encryption ? { encryption } : {}),
    ...(server.tellsRanges
      ? {}
      : {
          stored: uploads.map(() => []),
          completed: [],
          ...(server.roundtripToken ? { roundtripToken: server.roundtripToken } : {}),
        }),
  };
  return { transfer, uploads, record, sealer };
}

/**
 * Where the server does not tell what it holds, the record keeps what it acknowledged: written anew after each
 * acknowledged chunk (a few hundred bytes, next to a chunk of megabytes), so a killed run sends again only the
 * chunks that were in flight.
 */
function keeper(
  server: SendServer,
  store: ResumeBook<ResumeRecord>,
  key: string,
  record: ResumeRecord,
  uploads: UploadFile[],
): {
  onStored?: (f: UploadFile) => void;
  onCompleted?: (f: UploadFile) => void;
  flush?: () => void;
} {
  if (server.tellsRanges) return {};
  const index = new Map(uploads.map((u, i) => [u, i]));
  const save = () => store.save(key, record);
  return {
    onStored: (f: UploadFile) => {
      record.stored![index.get(f)!] = f.acked;
      save();
    },
    onCompleted: (f: UploadFile) => {
      record.completed = [...(record.completed ?? []), f.fileId];
      save();
    },
    flush: save,
  };
}

async function discard(server: SendServer, id: number, reporter: Reporter): Promise<void> {
  const failed = await server.discardTransfer(id);
  if (failed) reporter.note(`could not remove the unfinished transfer ${id} (${failed}); the server purges it in time`);
}

/**
 * The Transfer a killed run of the same command began, with what is already on the server of each file (as the
 * server says, or as the record kept where it cannot); null when there is none to carry on, said and, where the
 * server still has it, removed.
 */
async function resumeTransfer(
  server: SendServer,
  record: ResumeRecord | null,
  files: SourceFile[],
  reporter: Reporter,
): Promise<{ transfer: ServerTransfer; uploads: UploadFile[]; done: boolean } | null> {
  if (
    !record ||
    record.url !== server.api.url ||
    record.user !== server.api.creds?.user ||
    record.files.length !== files.length
  )
    return null;
  const found = await server.unfinished(record.transferId);
  if ('why' in found) {
    reporter.note(
      `the interrupted send of these files cannot be carried on: transfer ${record.transferId} ${found.state === 'gone' ? found.why : `cannot take more data (${found.why})`}; starting over`,
    );
    return null;
  }
  const t = found.transfer;
  const uploads: UploadFile[] = [];
  for (let i = 0; i < files.length; i++) {
    const src = files[i];
    const r = record.files[i];
    const f = t.files.find((x) => x.id === r.fileId);
    const seal = record.encryption?.files[i];
    if (!f || r.name !== src.name || r.size !== src.size || f.size !== src.size || (record.encryption && !seal)) {
      reporter.note(`the interrupted send's transfer ${t.id} no longer matches these files: starting over`);
      await discard(server, t.id, reporter);
      return null;
    }
    // Killed after the Transfer was completed (ferry says so): every file is in.
    const upload: UploadFile = {
      fileId: f.id,
      name: src.name,
      path: src.path,
      size: src.size,
      mtimeMs: src.mtimeMs,
      acked: record.stored?.[i] ?? [],
      complete: found.state === 'done' || (record.completed ?? []).includes(f.id),
      ...(seal ? { seal } : {}),
    };
    // What the server tells of the file wins; FileSender tells nothing of what arrived, the record keeps it.
    reconcile(upload, server.tellsRanges ? f : { complete: f.complete });
    uploads.push(upload);
  }
  server.roundtripToken = record.roundtripToken;
  return { transfer: t, uploads, done: found.state === 'done' };
}
