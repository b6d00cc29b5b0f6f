import crypto from 'node:crypto';
import type { Middleware } from 'koa';
import { AuthRequest, resolvePrincipal } from '../../auth/principal';
import { ServiceError } from '../../domain/errors';
import type { FerryContext, FerryState } from '../state';

const UNSAFE = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
export const SECURITY_TOKEN_HEADER = 'X-Ferry-Security-Token';

/**
 * Resolves the principal (spec: evaluation order) and, for browser sessions, demands the security token on
 * state-changing requests so another site cannot act with the user's cookie.
 */
export function authenticate(): Middleware<FerryState> {
  return async (ctx, next) => {
    const req = authRequestOf(ctx as FerryContext);
    const principal = await resolvePrincipal(ctx.state.services.authenticators, req);
    ctx.state.principal = principal;
    if (principal.type === 'user' && principal.csrfToken && UNSAFE.has(ctx.method)) {
      const given = ctx.get(SECURITY_TOKEN_HEADER);
      if (!given || !timingSafeEqualStr(given, principal.csrfToken)) {
        throw new ServiceError('rest_security_token_did_not_match', 403);
      }
    }
    await next();
  };
}

export function timingSafeEqualStr(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

export function authRequestOf(ctx: FerryContext): AuthRequest {
  const original = ctx.originalUrl;
  const q = original.indexOf('?');
  const rawQuery = q < 0 ? '' : original.slice(q + 1);
  const raw = ctx.state.rawBody ?? (typeof ctx.request.rawBody === 'string' ? Buffer.from(ctx.request.rawBody) : Buffer.alloc(0));
  return {
    method: ctx.method,
    path: q < 0 ? original : original.slice(0, q),
    rawQuery,
    query: new URLSearchParams(rawQuery),
    headers: ctx.headers,
    remoteAddress: ctx.req.socket.remoteAddress ?? '',
    body: raw,
    cookies: parseCookies(ctx.get('Cookie')),
  };
}

function parseCookies(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    if (!(name in out)) {
      try {
        out[name] = decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        out[name] = part.slice(i + 1).trim();
      }
    }
  }
  return out;
}
