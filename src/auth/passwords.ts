import crypto from 'node:crypto';
import { promisify } from 'node:util';
import type { IdGenerator, PasswordHasher } from '../domain/ports';

const scrypt = promisify(crypto.scrypt) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: crypto.ScryptOptions,
) => Promise<Buffer>;
const N = 16384;
const R = 8;
const P = 1;
const LEN = 32;

/** scrypt with a per-user random salt; the parameters travel in the stored string so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, LEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const got = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return got.length === expected.length && crypto.timingSafeEqual(got, expected);
}

/** The domain's password port. */
export const scryptPasswords: PasswordHasher = { hash: hashPassword, verify: verifyPassword };

/** A password for the first admin: 18 random bytes, URL-safe. */
export function randomPassword(): string {
  return crypto.randomBytes(18).toString('base64url');
}

export function randomSecret(): string {
  return crypto.randomBytes(32).toString('hex');
}

/** The domain's id/secret port: every value from node:crypto's CSPRNG, at the sizes docs/security.md promises. */
export const cryptoIds: IdGenerator = {
  token: () => crypto.randomBytes(16).toString('hex'),
  guestToken: () => crypto.randomBytes(20).toString('hex'),
  secret: randomSecret,
  password: randomPassword,
  sessionTokens: () => ({
    token: crypto.randomBytes(32).toString('base64url'),
    csrfToken: crypto.randomBytes(24).toString('base64url'),
  }),
};
