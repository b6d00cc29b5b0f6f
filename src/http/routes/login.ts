import Router from '@koa/router';
import { ServiceError } from '../../domain/errors';
import { SESSION_COOKIE, SESSION_MAX_S } from '../../auth/session-sp';
import { SECURITY_TOKEN_HEADER, timingSafeEqualStr } from '../middleware/authenticate';
import type { FerryContext, FerryState } from '../state';
import { basePath } from '../web/layout';

/** Only same-site relative paths are followed after login (no open redirect). */
export function safeReturnPath(v: unknown): string {
  return typeof v === 'string' && /^\/(?![/\\])[^\s]*$/.test(v) ? v : '/';
}

/**
 * POST /login (form or JSON), POST|GET /logout for the local service provider. The session cookie is
 * HttpOnly, SameSite=Lax, and Secure when base_url is https.
 */
export function loginRoutes(): Router<FerryState> {
  const r = new Router<FerryState>();
  r.post('/login', async (koaCtx) => {
    const ctx = koaCtx as FerryContext;
    const s = ctx.state.services;
    if (s.settings.get().auth.sp.type !== 'local') throw new ServiceError('rest_endpoint_not_found', 404);
    const b = (ctx.request.body ?? {}) as Record<string, unknown>;
    const form = ctx.is('application/x-www-form-urlencoded');
    try {
      const result = await s.accounts.login(b.user_id, b.password, ctx.request.ip);
      const secure = s.settings.get().base_url.startsWith('https:');
      ctx.cookies.set(SESSION_COOKIE, result.token, { httpOnly: true, sameSite: 'lax', secure, path: `${basePath(ctx)}/`, maxAge: SESSION_MAX_S * 1000, overwrite: true });
      if (form) ctx.redirect(`${basePath(ctx)}${safeReturnPath(b.return)}`);
      else ctx.body = { user_id: result.userId, csrf_token: result.csrfToken };
      if (form) ctx.status = 303;
    } catch (e) {
      if (e instanceof ServiceError && e.status === 429) ctx.set('Retry-After', String(e.details?.[0]?.split('=')[1] ?? 900));
      if (form && e instanceof ServiceError && e.status === 401) {
        ctx.redirect(`${basePath(ctx)}/login?failed=1&return=${encodeURIComponent(safeReturnPath(b.return))}`);
        ctx.status = 303;
        return;
      }
      throw e;
    }
  });
  const logout = (koaCtx: unknown) => {
    const ctx = koaCtx as FerryContext;
    const p = ctx.state.principal;
    // POST needs the security token like any cookie-authenticated change; GET (a link) only ends the session.
    if (ctx.method === 'POST' && p.type === 'user' && p.csrfToken && !timingSafeEqualStr(ctx.get(SECURITY_TOKEN_HEADER), p.csrfToken)) {
      throw new ServiceError('rest_security_token_did_not_match', 403);
    }
    ctx.state.services.accounts.logout(ctx.cookies.get(SESSION_COOKIE));
    ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', path: `${basePath(ctx)}/`, maxAge: 0, overwrite: true });
    if (ctx.method === 'GET') ctx.redirect(`${basePath(ctx)}/login`);
    else ctx.body = 'true';
    if (ctx.method === 'POST') ctx.type = 'application/json';
  };
  r.post('/logout', logout);
  r.get('/logout', logout);
  return r;
}
