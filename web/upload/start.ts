import type { Api } from '../lib/api';
import type { FileJson, TransferJson } from '../../src/http/presenters/wire';
import { allSent, reconcile } from '../../src/shared/resume';
import type { ResumeFile, ResumeRecord } from './resume-store';
import { chunkKeyQuery, Source, Upload, UploadOptions } from './uploader';
import {
  ChunkSealer,
  encryptedTransferFields,
  keyCheck,
  transferKey,
  type EncryptionChoice,
  type RecordEncryption,
} from './encryption';

/** An encrypted upload's password and where the encrypting worker's script is; the password is kept nowhere. */
export interface EncryptUpload {
  choice: EncryptionChoice;
  /** PBKDF2 iterations for new transfers (the server's encryption_password_hash_iterations). */
  iterations: number;
  workerUrl: string;
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

/** POST /transfer, then an Upload ready to run. */
export async function createUpload(
  api: Api,
  sources: Source[],
  req: CreateTransfer,
  owner: string,
  opts: UploadOptions,
  encrypt?: EncryptUpload,
): Promise<Upload> {
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
  let seal: UploadOptions['seal'];
  let encryption: RecordEncryption | undefined;
  if (encrypt && enc) {
    // The key needs the salt the server made for this transfer, so it is derived only now.
    const params = {
      salt: t.salt ?? '',
      iterations: encrypt.iterations,
      passwordVersion: encrypt.choice.passwordVersion,
      passwordEncoding: encrypt.choice.passwordEncoding,
    };
    const key = await transferKey(encrypt.choice, params);
    encryption = { ...params, keyCheck: await keyCheck(key) };
    seal = sealWith(key, encrypt.workerUrl);
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
  return new Upload(api, record, map, { ...opts, seal });
}

/**
 * Continues a remembered upload with the files chosen again. The server's view wins where it knows more:
 * `ranges` when it exposes them, and a file it reports complete or fully received needs no more data.
 */
export async function resumeUpload(
  api: Api,
  record: ResumeRecord,
  sources: Map<number, Source>,
  opts: Omit<UploadOptions, 'chunkSize'>,
  decrypt?: { password: string; workerUrl: string },
): Promise<Upload> {
  let seal: UploadOptions['seal'];
  if (record.encryption) {
    if (!decrypt) throw new WrongResumePassword();
    const key = await transferKey(decrypt, record.encryption);
    // Sealing a chunk with another key would store bytes nobody can decrypt: the same key or nothing.
    if ((await keyCheck(key)) !== record.encryption.keyCheck) throw new WrongResumePassword();
    seal = sealWith(key, decrypt.workerUrl);
  }
  for (const f of record.files) {
    if (f.complete) continue;
    reconcile(f, await api.get<FileJson>(`/file/${f.fileId}`, { query: chunkKeyQuery(f, opts.useKey) }));
    if (!f.complete && !sources.has(f.fileId) && !allSent(f)) throw new Error(`missing source for ${f.name}`);
  }
  return new Upload(api, record, sources, { ...opts, chunkSize: record.chunkSize, seal });
}

function sealWith(key: CryptoKey, workerUrl: string): UploadOptions['seal'] {
  const sealer = new ChunkSealer(key, workerUrl);
  return (file, index, plain) => sealer.seal(file, index, plain);
}
