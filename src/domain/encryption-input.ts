import crypto from 'node:crypto';
import { Errors } from './errors';
import type { TransferEncryption } from './model';
import {
  aeadText,
  FILE_IV_OCTETS,
  KEY_VERSION_AES_GCM_PBKDF2,
  MAX_CHUNKS_PER_FILE,
  PASSWORD_VERSION_GENERATED,
  PASSWORD_VERSION_TEXT,
} from '../shared-crypto/format';

/** What the server's settings say about end-to-end encryption for a new transfer. */
export interface EncryptionPolicy {
  enabled: boolean;
  mandatory: boolean;
  /** Used when a client does not say how many PBKDF2 iterations it used (FileSender does the same). */
  defaultIterations: number;
  chunkSize: number;
}

export interface EncryptedDraft {
  transfer: Omit<TransferEncryption, 'salt'>;
  /** Per file, in the order of `files`: the IV and AEAD as the client sent them (both base64). */
  files: { iv: string; aead: string }[];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** FileSender's clients send flags and numbers as JSON values or as strings ("3", "true"). */
function flag(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 'true';
}
function integer(v: unknown, field: string, min: number, max: number): number {
  const n = typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min || n > max) throw Errors.restBadParameter(field);
  return n;
}
function base64Octets(v: unknown): number | null {
  if (typeof v !== 'string' || v.length > 4096 || v.length % 4 !== 0 || !BASE64.test(v)) return null;
  return Buffer.from(v, 'base64').length;
}

/**
 * The encryption fields of POST /transfer (docs/encryption.md): `encryption`, `encryption_key_version` (3),
 * `encryption_password_version` (1 typed, 2 generated) and `_encoding`, `encryption_password_hash_iterations`,
 * `encryption_client_entropy`, and per file `iv` (12 octets) and `aead` (base64 of FileSender's AEAD string,
 * which must name this file's chunk count, the server's chunk size and the same IV, or the file could never
 * be decrypted). Returns null for a plain transfer; refuses one when encryption is mandatory.
 */
export function parseEncryption(
  b: Record<string, unknown>,
  files: { size: number }[],
  policy: EncryptionPolicy,
): EncryptedDraft | null {
  if (!flag(b.encryption)) {
    if (policy.mandatory) throw Errors.transferMustBeEncrypted('encryption');
    return null;
  }
  if (!policy.enabled) throw Errors.encryptionNotEnabled('encryption');
  const keyVersion = integer(
    b.encryption_key_version,
    'encryption_key_version',
    KEY_VERSION_AES_GCM_PBKDF2,
    KEY_VERSION_AES_GCM_PBKDF2,
  );
  const passwordVersion = integer(
    b.encryption_password_version ?? PASSWORD_VERSION_TEXT,
    'encryption_password_version',
    PASSWORD_VERSION_TEXT,
    PASSWORD_VERSION_GENERATED,
  );
  const encoding =
    b.encryption_password_encoding ?? (passwordVersion === PASSWORD_VERSION_GENERATED ? 'base64' : 'none');
  if (encoding !== (passwordVersion === PASSWORD_VERSION_GENERATED ? 'base64' : 'none'))
    throw Errors.restBadParameter('encryption_password_encoding');
  const hashIterations =
    b.encryption_password_hash_iterations === undefined ||
    b.encryption_password_hash_iterations === null ||
    b.encryption_password_hash_iterations === ''
      ? policy.defaultIterations
      : integer(b.encryption_password_hash_iterations, 'encryption_password_hash_iterations', 1, 1_000_000_000);
  let clientEntropy: string | null = null;
  if (
    b.encryption_client_entropy !== undefined &&
    b.encryption_client_entropy !== null &&
    b.encryption_client_entropy !== ''
  ) {
    const n = base64Octets(b.encryption_client_entropy);
    if (n === null || n < 16 || n > 1024) throw Errors.restBadParameter('encryption_client_entropy');
    clientEntropy = b.encryption_client_entropy as string;
  }
  const given = b.files as Record<string, unknown>[];
  const perFile = files.map((f, i) => {
    const { iv, aead } = given[i];
    if (base64Octets(iv) !== FILE_IV_OCTETS) throw Errors.restBadParameter(`files[${i}].iv`);
    if (Math.ceil(f.size / policy.chunkSize) > MAX_CHUNKS_PER_FILE)
      throw Errors.transferMaximumSizeExceeded(`files[${i}].size`);
    // The AEAD is authenticated with every chunk; one that disagrees with the file would make it undecryptable.
    if (
      base64Octets(aead) === null ||
      Buffer.from(aead as string, 'base64').toString('latin1') !== aeadText(f.size, policy.chunkSize, iv as string)
    ) {
      throw Errors.restBadParameter(`files[${i}].aead`);
    }
    return { iv: iv as string, aead: aead as string };
  });
  return {
    transfer: {
      keyVersion,
      passwordVersion,
      passwordEncoding: encoding as string,
      hashIterations,
      clientEntropy,
      chunkSize: policy.chunkSize,
    },
    files: perFile,
  };
}

/** FileSender's salt: 32 random octets in base64, cut to 32 characters (used as text, never decoded). */
export function newSalt(): string {
  return crypto.randomBytes(32).toString('base64').slice(0, 32);
}
