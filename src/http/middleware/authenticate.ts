import crypto from 'node:crypto';
import type { Middleware } from 'koa';
import { AuthRequest, resolvePrincipal } from '../../auth/principal';
import { isForeignOrigin } from '../../auth/origin';
import { Errors } from '../../domain/errors';
import { toServiceError } from './errors';
import type { FerryContext, FerryState } from '../state';

const UNSAFE = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
export const SECURITY_TOKEN_HEADER = 'X-Ferry-Security-Token';

/**
 * Resolves the principal (spec: evaluation order) and guards browser credentials on state-changing requests:
 * a service-provider user's request must not come from another site's page (Origin), and a local session must
 * carry its security token. Signed, guest-token and chunk-key requests carry their own proof and need neither.
 */
export function authenticate(): Middleware<FerryState> {
  return async (ctx, next) => {
    const c = ctx as FerryContext;
    const req = authRequestOf(c);
    const principal = await resolvePrincipal(ctx.state.services.authenticators, req);
    ctx.state.principal = principal;
    // An identity provider's answer (an assertion it posts, a logout it starts) comes from its own site by
    // design and proves itself; it does not act through the browser's session.
    const fromProvider = /^\/login\/[^/]+\/(callback|logout)$/.test(ctx.path);
    if (principal.type === 'user' && principal.via === 'sp' && UNSAFE.has(ctx.method) && !fromProvider) {
      if (isForeignOrigin(ctx.headers, ctx.state.services.settings.get().base_url)) {
        throw Errors.restSecurityTokenDidNotMatch('origin');
      }
      // Logging in again from a stale login page does not act through the current session: no token needed.
      // A password is its own proof: a login form's, or a link password's.
      const isLogin =
        ctx.method === 'POST' &&
        (ctx.path === '/login' || /^\/login\/[^/]+$/.test(ctx.path) || ctx.path === '/download/unlock');
      if (
        principal.csrfToken &&
        !isLogin &&
        !securityTokenMatches(ctx.get(SECURITY_TOKEN_HEADER), principal.csrfToken)
      ) {
        throw Errors.restSecurityTokenDidNotMatch();
      }
    }
    const signed = principal.type === 'user' || principal.type === 'application' ? principal : null;
    if (!signed?.releaseSignature && !signed?.signedBody) return next();
    // A signed change that is refused did not happen: its signature is given back (see checkReplay). With a
    // body that streams, the signature is spent only once the body matched: read the release afterwards.
    try {
      await next();
    } catch (e) {
      if (isRefusal(toServiceError(e).status)) await signed.releaseSignature?.().catch(() => {}); // the refusal stands either way
      throw e;
    }
    if (isRefusal(ctx.status)) await signed.releaseSignature?.();
    // A handler that answers a signed chunk without its body matching would act on an unproven principal.
    else if (signed.signedBody) await signed.signedBody.verified();
  };
}

const isRefusal = (status: number) => status >= 400 && status < 500;

/**
 * A GET that acts (the spec's `GET /transfer/{id}/auditlog/mail` sends mail) is guarded like a change: with
 * browser credentials it must come from this site's own pages, so a link or a top-level navigation from another
 * site cannot make it act. A local session must carry its security token (the pages send it on every request);
 * under the header service provider a foreign Origin, or a fetch the browser marks as from another site
 * (`Sec-Fetch-Site`), is refused. Signed, guest-token and chunk-key requests carry their own proof.
 */
export const actingGet = (ctx: FerryContext, next: () => Promise<unknown>): Promise<unknown> => {
  const p = ctx.state.principal;
  if (p.type === 'user' && p.via === 'sp') {
    const site = ctx.get('Sec-Fetch-Site');
    if (
      isForeignOrigin(ctx.headers, ctx.state.services.settings.get().base_url) ||
      (site !== '' && site !== 'same-origin' && site !== 'none')
    ) {
      throw Errors.restSecurityTokenDidNotMatch('origin');
    }
    if (p.csrfToken && !securityTokenMatches(ctx.get(SECURITY_TOKEN_HEADER), p.csrfToken))
      throw Errors.restSecurityTokenDidNotMatch();
  }
  return next();
};

/** Constant-time comparison of the security token (hashing first makes the lengths equal). */
export function securityTokenMatches(given: string, expected: string): boolean {
  if (!given) return false;
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

export function authRequestOf(ctx: FerryContext): AuthRequest {
  const original = ctx.originalUrl;
  const q = original.indexOf('?');
  const rawQuery = q < 0 ? '' : original.slice(q + 1);
  const raw =
    ctx.state.rawBody ?? (ctx.request.rawBody !== undefined ? Buffer.from(ctx.request.rawBody) : Buffer.alloc(0));
  return {
    method: ctx.method,
    path: q < 0 ? original : original.slice(0, q),
    rawQuery,
    query: new URLSearchParams(rawQuery),
    headers: ctx.headers,
    remoteAddress: ctx.req.socket.remoteAddress ?? '',
    body: raw,
    ...(ctx.state.bodyFollows ? { bodyFollows: true } : {}),
    cookies: parseCookies(ctx.get('Cookie')),
  };
}

function parseCookies(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    if (name in out) continue; // the first (most specific path) wins, as browsers order them
    const value = part.slice(i + 1).trim();
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}
