import crypto from 'node:crypto';

/**
 * The FileSender signed request, shared by the server that checks it (src/auth/signature.ts) and the terminal
 * client that makes it (src/client/): HMAC-SHA1 (hex) of
 *   <lowercased method>&<host and path>?<arguments sorted, signature removed>[&<body>]
 * No request or server types, so either side imports it without the other. Node's HMAC, fed the body in pieces
 * as it streams: the pages never sign (they have a session), so this is not browser code (src/shared/ is).
 */

/** The query arguments as signed: `name=value` pairs, sorted, joined with '&' (values as the caller gives them). */
export function sortedQuery(pairs: string[]): string {
  return [...pairs].sort().join('&');
}

/** The part of the string to sign before the body: `<method>&<host and path>[?<sorted query>]`. */
export function signingHead(method: string, hostAndPath: string, query: string): Buffer {
  return Buffer.from(`${method.toLowerCase()}&${hostAndPath}${query ? `?${query}` : ''}`, 'utf8');
}

const AMP = Buffer.from('&');

/** The HMAC of a head and an optional body, fed in pieces so a big chunk is never copied. */
export function signatureOf(secret: string, head: Buffer, body?: Uint8Array): Buffer {
  const h = crypto.createHmac('sha1', secret).update(head);
  if (body?.length) h.update(AMP).update(body);
  return h.digest();
}
