import crypto from 'node:crypto';
import net from 'node:net';
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

/**
 * What the link-password throttle counts wrong tries against (docs/hardening.md, "Link-password throttle"): the
 * link and the client's address together, never the link alone. Whoever holds a link could otherwise lock it
 * for its recipients with five wrong tries; this way they lock only their own address. An IPv6 client counts by
 * its /64, the block one network is given, so that stepping through its own addresses buys no more tries. (The
 * 20 tries per address of the login throttle are counted as well, by the whole address.)
 */
export function linkThrottleKey(recipientId: number, ip: string): string {
  return `link:${recipientId}:${addressGroup(ip)}`;
}

function addressGroup(ip: string): string {
  if (!net.isIPv6(ip)) return ip;
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) takes two groups; only the first four matter here.
  const missing = 8 - left.length - right.length - (right.at(-1)?.includes('.') ? 1 : 0);
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, missing)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}
