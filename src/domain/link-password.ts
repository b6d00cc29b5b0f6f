import crypto from 'node:crypto';
import { promisify } from 'node:util';

/**
 * A link password (docs/sharing.md, Link password): kept as a scrypt hash with a random salt, checked on the
 * server in constant time. It guards the links of a transfer; it is not end-to-end encryption, whose password
 * never reaches the server.
 */
const scrypt = promisify(crypto.scrypt) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: crypto.ScryptOptions,
) => Promise<Buffer>;
const PARAMS = { N: 16384, r: 8, p: 1 };
const KEY_LEN = 32;

export const LINK_PASSWORD_MAX = 1024;

export async function hashLinkPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password, salt, KEY_LEN, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyLinkPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, key] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !key) return false;
  const want = Buffer.from(key, 'base64');
  const got = await scrypt(password, Buffer.from(salt, 'base64'), want.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return crypto.timingSafeEqual(got, want);
}

/**
 * What a browser keeps once it gave the right password: an HMAC of the link's token keyed by the stored hash.
 * Only the server can make it (the hash never leaves it), every node can check it, and a new password voids it.
 */
export function unlockProof(stored: string, token: string): string {
  return crypto.createHmac('sha256', stored).update(`ferry-link:${token}`).digest('base64url');
}

export function proofMatches(stored: string, token: string, proof: string | undefined): boolean {
  if (!proof) return false;
  const want = Buffer.from(unlockProof(stored, token));
  const got = Buffer.from(proof);
  return got.length === want.length && crypto.timingSafeEqual(got, want);
}

/** The cookie that holds a link's proof: named after a digest of the token, never the token itself. */
export function unlockCookieName(token: string): string {
  return `ferry_link_${crypto.createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}
