import type { Api } from '../lib/api';
import type { FileJson, TransferJson } from '../../src/http/presenters/wire';
import { reconcile } from '../../src/shared/resume';
import type { ResumeFile, ResumeRecord } from './resume-store';
import { chunkKeyQuery, Source, Upload, type UploadHandle, UploadOptions } from './uploader';
import {
  chunkSeal,
  encryptedTransferFields,
  keyCheck,
  transferKey,
  type EncryptionChoice,
  type RecordEncryption,
} from './encryption';

/** An encrypted upload's password; it is kept nowhere (the engine gets the derived key only). */
export interface EncryptUpload {
  choice: EncryptionChoice;
  /** PBKDF2 iterations for new transfers (the server's encryption_password_hash_iterations). */
  iterations: number;
}

/** What an engine starts from: the record, its files, and for an encrypted upload the transfer's key. */
export interface EngineStart {
  api: Api;
  record: ResumeRecord;
  sources: Map<number, Source>;
  opts: UploadOptions;
  key?: CryptoKey;
}

/**
 * Where the engine runs. The page runs it in the upload worker (web/upload/worker-upload.ts); without a
 * choice it runs here, in this thread (Node in tests, and inside that worker).
 */
export type Engine = (start: EngineStart) => UploadHandle;

export const inThisThread = (s: EngineStart): Upload =>
  new Upload(s.api, s.record, s.sources, { ...s.opts, seal: s.key ? chunkSeal(s.key) : s.opts.seal });

/** Files of a remembered upload that the files chosen again do not match (by name, size and time). */
export class MissingFiles extends Error {
  constructor(readonly names: string[]) {
    super(`missing source for ${names.join(', ')}`);
    this.name = 'MissingFiles';
  }
}

/** The password typed again for a remembered encrypted upload did not give the same key. */
export class WrongResumePassword extends Error {
  constructor() {
    super('wrong password');
    this.name = 'WrongResumePassword';
  }
}

export interface CreateTransfer {
  recipients: string[];
  from: string;
  expires: number;
  subject?: string;
  message?: string;
  options?: string[];
  /** docs/sharing.md: downloads of each file allowed through each link. */
  download_limit?: number;
  /** docs/sharing.md: the link password (hashed by the server; not end-to-end encryption). */
  password?: string;
}

/** POST /transfer, then an upload ready to run, on the engine given (this thread's by default). */
export async function createUpload<H extends UploadHandle = Upload>(
  api: Api,
  sources: Source[],
  req: CreateTransfer,
  owner: string,
  opts: UploadOptions,
  encrypt?: EncryptUpload,
  engine: (s: EngineStart) => H = inThisThread as unknown as (s: EngineStart) => H,
): Promise<H> {
  const enc = encrypt
    ? encryptedTransferFields(
        sources.map((s) => s.size),
        opts.chunkSize,
        encrypt.choice,
        encrypt.iterations,
      )
    : null;
  const body = {
    ...req,
    ...(enc ? enc.fields : {}),
    files: sources.map((s, i) => ({
      name: s.name,
      size: s.size,
      mime_type: s.type || 'application/octet-stream',
      cid: `f${i}`,
      ...(enc ? { iv: enc.ivs[i], aead: enc.aeads[i] } : {}),
    })),
  };
  const t = await api.post<TransferJson & { salt?: string }>('/transfer', body);
  const byCid = new Map(t.files.map((f) => [f.cid, f]));
  const map = new Map<number, Source>();
  const files: ResumeFile[] = sources.map((s, i) => {
    const f: FileJson | undefined = byCid.get(`f${i}`) ?? t.files[i];
    map.set(f.id, s);
    return {
      fileId: f.id,
      uid: f.uid,
      name: s.name,
      size: s.size,
      lastModified: s.lastModified,
      acked: [],
      complete: false,
      ...(enc ? { iv: enc.ivs[i], aead: enc.aeads[i] } : {}),
    };
  });
  let key: CryptoKey | undefined;
  let encryption: RecordEncryption | undefined;
  if (encrypt && enc) {
    // The key needs the salt the server made for this transfer, so it is derived only now.
    const params = {
      salt: t.salt ?? '',
      iterations: encrypt.iterations,
      passwordVersion: encrypt.choice.passwordVersion,
      passwordEncoding: encrypt.choice.passwordEncoding,
    };
    key = await transferKey(encrypt.choice, params);
    encryption = { ...params, keyCheck: await keyCheck(key) };
  }
  const record: ResumeRecord = {
    transferId: t.id,
    owner,
    created: Math.floor(Date.now() / 1000),
    chunkSize: opts.chunkSize,
    subject: req.subject ?? '',
    recipients: req.recipients,
    files,
    links: t.recipients.map((r) => ({ email: r.email, url: r.download_url })),
    ...(encryption ? { encryption } : {}),
  };
  opts.store?.save(record);
  return engine({ api, record, sources: map, opts, key });
}

/**
 * Continues a remembered upload with the files chosen again. The server's view wins where it knows more:
 * `ranges` when it exposes them, and a file it reports complete or fully received needs no more data.
 */
export async function resumeUpload<H extends UploadHandle = Upload>(
  api: Api,
  record: ResumeRecord,
  sources: Map<number, Source>,
  opts: Omit<UploadOptions, 'chunkSize'>,
  decrypt?: { password: string },
  engine: (s: EngineStart) => H = inThisThread as unknown as (s: EngineStart) => H,
): Promise<H> {
  let key: CryptoKey | undefined;
  if (record.encryption) {
    if (!decrypt) throw new WrongResumePassword();
    key = await transferKey(decrypt, record.encryption);
    // Sealing a chunk with another key would store bytes nobody can decrypt: the same key or nothing.
    if ((await keyCheck(key)) !== record.encryption.keyCheck) throw new WrongResumePassword();
  }
  // Every file not completed needs its data chosen again and matched to the record (name, size, modification
  // time), even one whose bytes all arrived: completing it with another file's choice completed an 80 MB upload
  // from a 31 MB file.
  const missing = record.files.filter((f) => !f.complete && !sources.has(f.fileId));
  if (missing.length) throw new MissingFiles(missing.map((f) => f.name));
  for (const f of record.files) {
    if (f.complete) continue;
    reconcile(f, await api.get<FileJson>(`/file/${f.fileId}`, { query: chunkKeyQuery(f, opts.useKey) }));
  }
  return engine({ api, record, sources, opts: { ...opts, chunkSize: record.chunkSize }, key });
}
