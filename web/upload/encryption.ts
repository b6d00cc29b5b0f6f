import {
  type KeyRecord,
  aeadText,
  deriveKey,
  encryptChunk,
  encryptionRequestFields,
  fromBase64,
  generateFileIv,
  toBase64,
  type PasswordEncoding,
  type PasswordVersion,
} from '../../src/shared-crypto/format';

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
 * Seals chunk `index` of a file as FileSender's format says (IV ‖ ciphertext ‖ tag). It runs where the engine
 * runs (the upload worker on the page, off the page's thread); chunk i of a file is always sealed to the same
 * bytes (IV = file IV ‖ i), so a chunk sent again after a reload matches.
 */
export function chunkSeal(key: CryptoKey) {
  return async (file: { iv?: string; aead?: string }, index: number, plain: Blob): Promise<Uint8Array> => {
    if (!file.iv || !file.aead) throw new Error('no IV for an encrypted file');
    return encryptChunk(
      key,
      { fileIv: fromBase64(file.iv), aad: fromBase64(file.aead) },
      index,
      new Uint8Array(await plain.arrayBuffer()),
    );
  };
}
