import {
  type KeyRecord,
  aeadText,
  deriveKey,
  encryptChunk,
  encryptionRequestFields,
  generateFileIv,
  toBase64,
  type PasswordEncoding,
  type PasswordVersion,
} from '../../src/shared-crypto/format';

/** The encrypting worker's script (web/e2ee/encrypt-worker.ts), served with the page's other assets. */
export function encryptWorkerUrl(base: string): string {
  return `${base}/assets/encrypt-worker.js`;
}

/** What the sender chose: the password never leaves the page and is never stored. */
export interface EncryptionChoice {
  password: string;
  passwordVersion: PasswordVersion;
  passwordEncoding: PasswordEncoding;
}

/** What the resume record keeps of an encrypted upload (no password, no key). */
export type RecordEncryption = KeyRecord;

/** The fields of POST /transfer for an encrypted transfer, and each file's IV and base64 AEAD. */
export function encryptedTransferFields(
  sizes: number[],
  chunkSize: number,
  choice: EncryptionChoice,
  iterations: number,
) {
  const ivs = sizes.map(() => generateFileIv());
  const aeads = sizes.map((size, i) => btoa(aeadText(size, chunkSize, ivs[i])));
  return {
    ivs,
    aeads,
    fields: encryptionRequestFields(choice, iterations),
  };
}

export async function transferKey(
  choice: Pick<EncryptionChoice, 'password'>,
  e: Omit<RecordEncryption, 'keyCheck'>,
): Promise<CryptoKey> {
  return deriveKey({
    password: choice.password,
    passwordVersion: e.passwordVersion,
    passwordEncoding: e.passwordEncoding,
    salt: e.salt,
    iterations: e.iterations,
  });
}

/** The check value: chunk number 2³²−1 of an all-zero file IV, which no file of the transfer uses. */
export async function keyCheck(key: CryptoKey): Promise<string> {
  return toBase64(
    await encryptChunk(key, { fileIv: new Uint8Array(12), aad: new Uint8Array(0) }, 0xffff_ffff, new Uint8Array(0)),
  );
}

/**
 * Seals chunks in a worker, several at once (as many as the upload keeps in flight). Chunk i of a file is
 * always sealed to the same bytes (IV = file IV ‖ i), so a chunk sent again after a reload matches.
 */
export class ChunkSealer {
  private readonly worker: Worker;
  private next = 1;
  private readonly waiting = new Map<number, { resolve(b: Uint8Array): void; reject(e: Error): void }>();

  constructor(
    private readonly key: CryptoKey,
    scriptUrl: string,
  ) {
    this.worker = new Worker(scriptUrl);
    this.worker.onmessage = (e: MessageEvent<{ id: number; bytes?: Uint8Array; error?: string }>) => {
      const w = this.waiting.get(e.data.id);
      if (!w) return;
      this.waiting.delete(e.data.id);
      if (e.data.bytes) w.resolve(e.data.bytes);
      else w.reject(new Error(e.data.error ?? 'encryption failed'));
    };
    this.worker.onerror = () => {
      for (const w of this.waiting.values()) w.reject(new Error('the encrypting worker stopped'));
      this.waiting.clear();
    };
  }

  seal(file: { iv?: string; aead?: string }, index: number, plain: Blob): Promise<Uint8Array> {
    if (!file.iv || !file.aead) return Promise.reject(new Error('no IV for an encrypted file'));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, key: this.key, fileiv: file.iv, aead: file.aead, index, plain });
    });
  }
}
