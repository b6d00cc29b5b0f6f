import crypto from 'node:crypto';
import type { AuthRequest } from './principal';
import type { HashThread } from '../util/hash-thread';
import type { BodyPool } from '../util/body-pool';
import { signatureOf, signingHead, sortedQuery } from '../util/signing';

/**
 * The spec's signed request: HMAC-SHA1 (hex) of
 *   <lowercased method>&<host and path>?<arguments sorted, signature removed>[&<body>]
 * The host part may be written by the client as the Host header with or without its port, or as base_url's
 * host and path prefix (docs/architecture.md, HTTP surface); every variant is tried, each compared in constant time.
 */
export function stringsToSign(req: AuthRequest, baseUrl: string): Buffer[] {
  return signedHeads(req, baseUrl).map((head) => (req.body.length ? Buffer.concat([head, AMP, req.body]) : head));
}

const AMP = Buffer.from('&');

/** The part of each candidate string before the body, most likely variant first (the Host header as sent). */
export function signedHeads(req: AuthRequest, baseUrl: string): Buffer[] {
  return signedHeadVariants(req, baseUrl).map((h) => h.head);
}

/** A candidate head and which way of writing it it is: `<host way>.<path way>.<query way>`. */
export interface SignedHead {
  head: Buffer;
  shape: string;
}

/** The distinct candidate heads, each with the way it was written (the first way when two ways agree). */
export function signedHeadVariants(req: AuthRequest, baseUrl: string): SignedHead[] {
  const args = req.rawQuery
    .split('&')
    .filter((a) => a !== '' && !/^signature=/.test(a))
    .map((a) => {
      const i = a.indexOf('=');
      const k = i < 0 ? a : a.slice(0, i);
      const v = i < 0 ? '' : a.slice(i + 1);
      return { raw: a, decoded: `${safeDecode(k)}=${safeDecode(v)}` };
    });
  const queries = [sortedQuery(args.map((a) => a.decoded)), sortedQuery(args.map((a) => a.raw))];
  const hosts = hostVariants(req, baseUrl);
  // Clients sign the path as they wrote it; their HTTP library may then percent-encode it (a space in a user id).
  const paths = [req.path, decodePath(req.path)];
  const method = req.method;
  const seen = new Set<string>();
  const out: SignedHead[] = [];
  hosts.forEach((host, hi) => {
    if (host === null) return;
    paths.forEach((path, pi) => {
      queries.forEach((q, qi) => {
        const text = `${host}${path}\n${q}`;
        if (seen.has(text)) return;
        seen.add(text);
        out.push({ head: signingHead(method, `${host}${path}`, q), shape: `${hi}.${pi}.${qi}` });
      });
    });
  });
  return out;
}

function decodePath(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/** The ways of writing the host part, at fixed places (null where there is none): header, header without port, base_url's host and prefix, base_url's host. */
function hostVariants(req: AuthRequest, baseUrl: string): (string | null)[] {
  const hostHeader = String(req.headers.host ?? '');
  const out: (string | null)[] = [hostHeader || null, hostHeader ? hostHeader.replace(/:\d+$/, '') : null, null, null];
  try {
    const u = new URL(baseUrl);
    const prefix = u.pathname.replace(/\/+$/, '');
    // The request path already carries the prefix when ferry is mounted under one; then only the host is added.
    out[2] = prefix && req.path.startsWith(prefix) ? u.host : `${u.host}${prefix}`;
    out[3] = u.host;
  } catch {
    /* base_url is validated at start-up */
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/**
 * Checks a request's signature without copying its body: each candidate head, then '&' and the body, go
 * through the HMAC in turn, stopping at the first match (which variant matched is no secret; each comparison
 * is constant-time). A 5 MiB signed chunk thus costs one HMAC pass in the usual case, not one per variant.
 */
export function requestSignatureMatches(
  signature: string,
  secrets: string[],
  req: AuthRequest,
  baseUrl: string,
): boolean {
  return matchingShape(signature, secrets, req, baseUrl) !== null;
}

/** The way of writing the signed string that matched (SignedHead.shape), or null when none did. */
export function matchingShape(signature: string, secrets: string[], req: AuthRequest, baseUrl: string): string | null {
  if (!/^[0-9a-f]{40}$/i.test(signature)) return null;
  const given = Buffer.from(signature.toLowerCase(), 'hex');
  for (const secret of secrets) {
    for (const h of signedHeadVariants(req, baseUrl)) {
      if (crypto.timingSafeEqual(signatureOf(secret, h.head, req.body), given)) return h.shape;
    }
  }
  return null;
}

/** Checks a request's signature against the secrets; may run elsewhere than the event loop. */
export type SignatureCheck = (
  signature: string,
  secrets: string[],
  req: AuthRequest,
  baseUrl: string,
) => Promise<boolean>;

/** Bodies from this size are checked on the hashing thread: below it the hop costs more than the HMAC. */
const THREAD_FROM = 256 * 1024;

/**
 * A signed chunk's HMAC (5 MiB by default) took about 4 ms of the event loop per chunk; on the hashing thread it
 * runs beside the next chunk's bytes arriving. A body from the body pool is in shared memory: the thread reads
 * it where it is. Other bodies are checked here.
 */
export function threadedSignatureCheck(thread: HashThread, pool: BodyPool): SignatureCheck {
  return async (signature, secrets, req, baseUrl) => {
    const body = req.body;
    if (body.length < THREAD_FROM || !pool.owns(body) || thread.failed || !/^[0-9a-f]{40}$/i.test(signature)) {
      return requestSignatureMatches(signature, secrets, req, baseUrl);
    }
    const heads = signedHeads(req, baseUrl);
    const msg = {
      op: 'hmac',
      secrets,
      heads,
      memory: body.buffer,
      offset: body.byteOffset,
      length: body.length,
      given: signature.toLowerCase(),
    };
    return (await thread.call<{ match: boolean }>(msg)).match;
  };
}

export function sign(secret: string, data: Buffer): string {
  return crypto.createHmac('sha1', secret).update(data).digest('hex');
}

/** True when the signature matches one of the candidate strings under one of the secrets. */
export function signatureMatches(signature: string, secrets: string[], candidates: Buffer[]): boolean {
  if (!/^[0-9a-f]{40}$/i.test(signature)) return false;
  const given = Buffer.from(signature.toLowerCase(), 'hex');
  let ok = false;
  for (const secret of secrets) {
    for (const c of candidates) {
      const expected = crypto.createHmac('sha1', secret).update(c).digest();
      if (crypto.timingSafeEqual(expected, given)) ok = true;
    }
  }
  return ok;
}
