import {
  type KeyRecord,
  aeadText,
  DEFAULT_HASH_ITERATIONS,
  deriveKey,
  encryptChunk,
  fromBase64,
  generateFileIv,
  generatePassword,
  PASSWORD_VERSION_TEXT,
  passwordProblems,
  toBase64,
  type PasswordEncoding,
  type PasswordVersion,
} from '../shared-crypto/format';
import { ClientError } from './errors';

/**
 * The command-line client's side of end-to-end encryption (docs/encryption.md), on the same format module as
 * the upload page, so what one encrypts the other decrypts. The password stays in this process: it is never
 * sent, logged or written to the resume record.
 */

export interface PasswordChoice {
  password: string;
  passwordVersion: PasswordVersion;
  passwordEncoding: PasswordEncoding;
  /** Made here (version 2, as the page makes them): the user must be shown it once. */
  generated: boolean;
}

/** FERRY_PASSWORD, else standard input with --password-stdin (its last line end dropped), else null. */
export async function givenPassword(
  env: NodeJS.ProcessEnv,
  fromStdin: boolean,
  readStdin: () => Promise<string>,
): Promise<string | null> {
  if (fromStdin) {
    const text = (await readStdin()).replace(/\r?\n$/, '');
    if (text === '') throw new ClientError('--password-stdin: standard input held no password');
    return text;
  }
  const v = env.FERRY_PASSWORD;
  return v !== undefined && v !== '' ? v : null;
}

/** A typed password (version 1, its UTF-8 bytes go into PBKDF2) or, when none was given, a generated one. */
export function choosePassword(given: string | null): PasswordChoice {
  if (given !== null)
    return { password: given, passwordVersion: PASSWORD_VERSION_TEXT, passwordEncoding: 'none', generated: false };
  const g = generatePassword();
  return { password: g.value, passwordVersion: g.version, passwordEncoding: g.encoding, generated: true };
}

/** The server's rules for typed passwords (from GET /info), checked before anything is created. */
export function checkPasswordRules(choice: PasswordChoice, info: Record<string, unknown>): void {
  if (choice.generated) return;
  const problems = passwordProblems(choice.password, {
    minLength: typeof info.encryption_min_password_length === 'number' ? info.encryption_min_password_length : 0,
    mixedCase: info.encryption_password_must_have_upper_and_lower_case === true,
    numbers: info.encryption_password_must_have_numbers === true,
    special: info.encryption_password_must_have_special_characters === true,
  });
  const say: Record<string, string> = {
    min_length: `at least ${String(info.encryption_min_password_length)} characters`,
    mixed_case: 'upper- and lower-case letters',
    numbers: 'a digit',
    special: 'a character that is neither letter nor digit',
  };
  if (problems.length)
    throw new ClientError(
      `the password is too weak for this server: it needs ${problems.map((p) => say[p]).join(', ')}`,
    );
}

export function iterationsFrom(info: Record<string, unknown>): number {
  const n = info.encryption_password_hash_iterations;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_HASH_ITERATIONS;
}

/** A file's IV and base64 AEAD, as the page sends them in POST /transfer. */
export interface FileSeal {
  iv: string;
  aead: string;
}

export function newFileSeal(size: number, chunkSize: number): FileSeal {
  const iv = generateFileIv();
  return { iv, aead: btoa(aeadText(size, chunkSize, iv)) };
}

/** What the resume record keeps: the server's parameters and a key check value. No password, no key. */
export interface RecordEncryption extends KeyRecord {
  files: FileSeal[];
}

export function keyFor(
  password: string,
  e: Pick<RecordEncryption, 'salt' | 'iterations' | 'passwordVersion' | 'passwordEncoding'>,
): Promise<CryptoKey> {
  return deriveKey({
    password,
    passwordVersion: e.passwordVersion,
    passwordEncoding: e.passwordEncoding,
    salt: e.salt,
    iterations: e.iterations,
  });
}

/** The page's check value: chunk 2³²−1 of an all-zero file IV (no file uses it) sealed over nothing. */
export async function keyCheck(key: CryptoKey): Promise<string> {
  return toBase64(
    await encryptChunk(key, { fileIv: new Uint8Array(12), aad: new Uint8Array(0) }, 0xffff_ffff, new Uint8Array(0)),
  );
}

/** Seals chunk `index` of a file; deterministic (IV = file IV ‖ index), so a resumed send sends the same bytes. */
export function sealerFor(key: CryptoKey) {
  return async (seal: FileSeal, index: number, plain: Uint8Array): Promise<Buffer> => {
    const out = await encryptChunk(key, { fileIv: fromBase64(seal.iv), aad: fromBase64(seal.aead) }, index, plain);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  };
}
