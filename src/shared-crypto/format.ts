/**
 * FileSender's end-to-end encryption format, key version 3 (docs/encryption.md): AES-256-GCM with a key from
 * PBKDF2-HMAC-SHA-256, one 16-octet IV per chunk made of the file's 12 random octets and the chunk number, the
 * file's AEAD string as additional data, and each stored chunk = IV ‖ ciphertext ‖ tag.
 *
 * Pure TypeScript on WebCrypto (`globalThis.crypto.subtle`) and `atob`/`btoa`, so the same code runs in a
 * browser worker and in Node 24 (the command-line client). Nothing here touches the network or storage.
 */

export const KEY_VERSION_AES_GCM_PBKDF2 = 3;
/** The password is text the user typed: its UTF-8 bytes go into PBKDF2. */
export const PASSWORD_VERSION_TEXT = 1;
/** The password was generated: 32 random octets shown as base64; the decoded octets go into PBKDF2. */
export const PASSWORD_VERSION_GENERATED = 2;
export type PasswordVersion = typeof PASSWORD_VERSION_TEXT | typeof PASSWORD_VERSION_GENERATED;
export type PasswordEncoding = 'none' | 'base64';

export const GENERATED_PASSWORD_OCTETS = 32;
export const CLIENT_ENTROPY_OCTETS = 32;
export const FILE_IV_OCTETS = 12;
export const CHUNK_IV_OCTETS = 16;
export const TAG_OCTETS = 16;
/** What encryption adds to every chunk: the IV in front and the GCM tag behind. */
export const CHUNK_OVERHEAD = CHUNK_IV_OCTETS + TAG_OCTETS;
/** FileSender's default PBKDF2 iteration count for new files. */
export const DEFAULT_HASH_ITERATIONS = 150_000;
/** The chunk counter is 32 bits wide. */
export const MAX_CHUNKS_PER_FILE = 0xffff_ffff;

/** Why a chunk could not be decrypted; `wrong_password` is what an AES-GCM tag failure means to a user. */
export type DecryptFailure = 'wrong_password' | 'bad_chunk_iv' | 'bad_aead' | 'bad_file_iv' | 'bad_password_encoding';

/** Bytes WebCrypto takes: backed by an ordinary ArrayBuffer. */
export type Bytes = Uint8Array<ArrayBuffer>;

export class DecryptError extends Error {
  constructor(readonly reason: DecryptFailure) {
    super(reason);
    this.name = 'DecryptError';
  }
}

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error('WebCrypto is not available (a secure context is needed in a browser)');
  return s;
}

export function toBase64(bytes: Uint8Array): string {
  let s = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Strict base64 decoding; throws on anything that is not base64. */
export function fromBase64(text: string): Bytes {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) throw new Error('not base64');
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function randomBase64(octets: number): string {
  return toBase64(globalThis.crypto.getRandomValues(new Uint8Array(octets)));
}

/** A password of version 2: 256 random bits, shown (and typed back) as 44 characters of base64. */
export function generatePassword(): { value: string; version: PasswordVersion; encoding: PasswordEncoding } {
  return { value: randomBase64(GENERATED_PASSWORD_OCTETS), version: PASSWORD_VERSION_GENERATED, encoding: 'base64' };
}

/** The uploading client's entropy for the transfer (stored and returned by the server; v3 derives nothing from it). */
export function generateClientEntropy(): string {
  return randomBase64(CLIENT_ENTROPY_OCTETS);
}

/**
 * The Transfer-level fields of POST /transfer that announce an encrypted transfer, under FileSender's names:
 * the same for the upload page and the terminal client.
 */
export function encryptionRequestFields(
  choice: { passwordVersion: number; passwordEncoding: string },
  iterations: number,
) {
  return {
    encryption: true,
    encryption_key_version: KEY_VERSION_AES_GCM_PBKDF2,
    encryption_password_version: choice.passwordVersion,
    encryption_password_encoding: choice.passwordEncoding,
    encryption_password_hash_iterations: iterations,
    encryption_client_entropy: generateClientEntropy(),
  };
}

/** A file's 96 random IV bits, base64 (the file's `iv`). */
export function generateFileIv(): string {
  return randomBase64(FILE_IV_OCTETS);
}

/** The octets PBKDF2 gets for a password, as its version and encoding say. */
export function passwordBytes(password: string, version: number, encoding: string): Bytes {
  if (version === PASSWORD_VERSION_TEXT) return new TextEncoder().encode(password);
  if (version === PASSWORD_VERSION_GENERATED && encoding === 'base64') {
    let raw: Bytes;
    try {
      raw = fromBase64(password.trim());
    } catch {
      // A generated password is always base64: anything else cannot be it.
      throw new DecryptError('wrong_password');
    }
    if (raw.length !== GENERATED_PASSWORD_OCTETS) throw new DecryptError('wrong_password');
    return raw;
  }
  throw new DecryptError('bad_password_encoding');
}

export interface KeyParams {
  password: string;
  passwordVersion: number;
  passwordEncoding: string;
  /** The transfer's salt as the server made it (32 characters); its ASCII bytes are the PBKDF2 salt. */
  salt: string;
  iterations: number;
}

/** The transfer's AES-256-GCM key. Not extractable: it never leaves WebCrypto. */
export async function deriveKey(p: KeyParams): Promise<CryptoKey> {
  if (!Number.isSafeInteger(p.iterations) || p.iterations < 1) throw new Error('bad iteration count');
  const s = subtle();
  const base = await s.importKey(
    'raw',
    passwordBytes(p.password, p.passwordVersion, p.passwordEncoding),
    'PBKDF2',
    false,
    ['deriveKey'],
  );
  return s.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', iterations: p.iterations, salt: new TextEncoder().encode(p.salt) },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

export function chunkCount(size: number, chunkSize: number): number {
  return Math.ceil(size / chunkSize);
}

/** The stored size of an encrypted file: every chunk carries its IV and tag. */
export function encryptedSize(size: number, chunkSize: number): number {
  return size + CHUNK_OVERHEAD * chunkCount(size, chunkSize);
}

/** Where the chunk that starts at plaintext offset `offset` is stored. */
export function storedOffset(offset: number, chunkSize: number): number {
  return Math.floor(offset / chunkSize) * (chunkSize + CHUNK_OVERHEAD) + (offset % chunkSize);
}

/**
 * The file's AEAD string, exactly as FileSender writes it (member order and spelling matter: its bytes are
 * authenticated with every chunk). Sent to the server base64-encoded as the file's `aead`.
 */
export function aeadText(size: number, chunkSize: number, fileIv: string): string {
  return `{"aeadversion":1,"chunkcount":${chunkCount(size, chunkSize)},"chunksize":${chunkSize},"iv":"${fileIv}","aeadterminator":1}`;
}

/** What a downloader needs per file, from the server's `fileiv` and `fileaead` (both base64). */
export interface FileCrypto {
  fileIv: Bytes;
  /** The AEAD string's bytes: the additional data of every chunk. */
  aad: Bytes;
  chunkCount: number;
  chunkSize: number;
}

/** Checks a file's IV and AEAD against each other and against the chunk size in use, as FileSender does. */
export function fileCrypto(fileiv: string, fileaead: string, chunkSize: number): FileCrypto {
  let fileIv: Bytes;
  try {
    fileIv = fromBase64(fileiv);
  } catch {
    throw new DecryptError('bad_file_iv');
  }
  if (fileIv.length !== FILE_IV_OCTETS) throw new DecryptError('bad_file_iv');
  let aad: Bytes;
  let parsed: { aeadversion?: unknown; chunkcount?: unknown; chunksize?: unknown; iv?: unknown };
  try {
    aad = fromBase64(fileaead);
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(aad));
  } catch {
    throw new DecryptError('bad_aead');
  }
  if (parsed.aeadversion !== 1 || parsed.chunksize !== chunkSize || parsed.iv !== fileiv)
    throw new DecryptError('bad_aead');
  if (!Number.isSafeInteger(parsed.chunkcount) || (parsed.chunkcount as number) < 0) throw new DecryptError('bad_aead');
  return { fileIv, aad, chunkCount: parsed.chunkcount as number, chunkSize };
}

/** Chunk `index`'s IV: the file's 12 IV octets, then the index as a 32-bit little-endian integer. */
export function chunkIv(fileIv: Uint8Array, index: number): Bytes {
  if (fileIv.length !== FILE_IV_OCTETS) throw new Error('a file IV has 12 octets');
  if (!Number.isInteger(index) || index < 0 || index > MAX_CHUNKS_PER_FILE) throw new Error('chunk index out of range');
  const iv = new Uint8Array(CHUNK_IV_OCTETS);
  iv.set(fileIv);
  new DataView(iv.buffer).setUint32(FILE_IV_OCTETS, index, true);
  return iv;
}

/**
 * Encrypts plaintext chunk `index` into IV ‖ ciphertext ‖ tag. Deterministic for the same key, file and
 * index, so a chunk re-encrypted after a resume is the same bytes the server may already hold.
 */
export async function encryptChunk(
  key: CryptoKey,
  file: Pick<FileCrypto, 'fileIv' | 'aad'>,
  index: number,
  plain: Uint8Array,
): Promise<Bytes> {
  const iv = chunkIv(file.fileIv, index);
  const sealed = new Uint8Array(
    await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: file.aad, tagLength: 128 }, key, plain as Bytes),
  );
  const out = new Uint8Array(CHUNK_IV_OCTETS + sealed.length);
  out.set(iv);
  out.set(sealed, CHUNK_IV_OCTETS);
  return out;
}

/**
 * Decrypts stored chunk `index`. Its IV must be the file's IV and this index (a server cannot reorder or
 * swap chunks); a failed tag means the password is wrong (or the bytes were altered).
 */
export async function decryptChunk(
  key: CryptoKey,
  file: Pick<FileCrypto, 'fileIv' | 'aad'>,
  index: number,
  stored: Uint8Array,
): Promise<Bytes> {
  if (stored.length < CHUNK_OVERHEAD) throw new DecryptError('bad_chunk_iv');
  const iv = stored.subarray(0, CHUNK_IV_OCTETS);
  const expected = chunkIv(file.fileIv, index);
  for (let i = 0; i < CHUNK_IV_OCTETS; i++) if (iv[i] !== expected[i]) throw new DecryptError('bad_chunk_iv');
  try {
    const plain = await subtle().decrypt(
      { name: 'AES-GCM', iv: expected, additionalData: file.aad, tagLength: 128 },
      key,
      stored.subarray(CHUNK_IV_OCTETS) as Bytes,
    );
    return new Uint8Array(plain);
  } catch {
    throw new DecryptError('wrong_password');
  }
}

/** FileSender's password rules for typed passwords; the ids name what is missing, for the page to show. */
export interface PasswordRules {
  minLength: number;
  mixedCase: boolean;
  numbers: boolean;
  special: boolean;
}
export type PasswordRule = 'min_length' | 'mixed_case' | 'numbers' | 'special';

export function passwordProblems(password: string, rules: PasswordRules): PasswordRule[] {
  const out: PasswordRule[] = [];
  if ([...password].length < rules.minLength) out.push('min_length');
  if (rules.mixedCase && !(/\p{Ll}/u.test(password) && /\p{Lu}/u.test(password))) out.push('mixed_case');
  if (rules.numbers && !/\p{Nd}/u.test(password)) out.push('numbers');
  if (rules.special && !/[^\p{L}\p{N}]/u.test(password)) out.push('special');
  return out;
}

/**
 * What a resume record may keep of an encrypted upload (the page's and the terminal client's): the server's
 * parameters, which it gives to anyone holding the chunk key anyway, and a key check value, so that a password
 * given again after an interruption is known right before a chunk is sealed with another key. No password, no key.
 */
export interface KeyRecord {
  salt: string;
  iterations: number;
  passwordVersion: number;
  passwordEncoding: string;
  /** AES-GCM of nothing under the key, with an IV no chunk uses: a tag that shows the key is the same. */
  keyCheck: string;
}
