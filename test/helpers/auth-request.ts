import type { AuthRequest } from '../../src/auth/principal';

/** An AuthRequest as the authenticate middleware builds it from what arrived on the wire. */
export function arrivedRequest(
  method: string,
  url: string,
  host: string,
  body: Buffer | string = Buffer.alloc(0),
): AuthRequest {
  const q = url.indexOf('?');
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  return {
    method,
    path: q < 0 ? url : url.slice(0, q),
    rawQuery,
    query: new URLSearchParams(rawQuery),
    headers: { host },
    remoteAddress: '127.0.0.1',
    body: Buffer.from(body),
    cookies: {},
  };
}
