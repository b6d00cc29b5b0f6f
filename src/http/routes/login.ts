import Router from '@koa/router';
import { Errors, ServiceError } from '../../domain/errors';
import { SESSION_COOKIE, SESSION_MAX_S } from '../../auth/sessions';
import { isForeignOrigin } from '../../auth/origin';
import { throttleAddress } from '../../auth/client-address';
import type { FerryContext, FerryState } from '../state';
import { basePath } from '../web/layout';

/** Only same-site relative paths are followed after login (no open redirect). */
export function safeReturnPath(v: unknown): string {
  return typeof v === 'string' && /^\/(?![/\\])[^\s]*$/.test(v) ? v : '/';
}

/**
 * The session cookie: HttpOnly, SameSite=Lax, and Secure when base_url is https. TLS usually ends at a
 * reverse proxy, so the cookie is marked Secure from base_url rather than from the connection ferry sees.
 */
function setSessionCookie(ctx: FerryContext, value: string, maxAgeS: number): void {
  setCookie(ctx, SESSION_COOKIE, value, maxAgeS);
}

/**
 * This browser signed in before: a random token of its own (only its SHA-256 is stored, with the account),
 * which lets the right password through the login throttle while others' failures lock the account
 * (docs/hardening.md, "Login throttle"). 400 days, the longest browsers keep a cookie; kept at logout.
 */
const DEVICE_COOKIE = 'ferry_device';
const DEVICE_MAX_S = 400 * 86400;

function setCookie(ctx: FerryContext, name: string, value: string, maxAgeS: number): void {
  const secure = ctx.state.services.settings.get().base_url.startsWith('https:');
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(name, value, { httpOnly: true, sameSite: 'lax', secure, path: `${basePath(ctx)}/`, maxAge: maxAgeS * 1000, overwrite: true });
}

/** The login body's fields: both present, of sane length (checked here, at the edge). */
function credentials(b: Record<string, unknown>): { userId: string; password: string } {
  const { user_id: userId, password } = b;
  const missing = [typeof userId === 'string' && userId ? null : 'user_id', typeof password === 'string' && password ? null : 'password'];
  if (missing.some((m) => m)) throw Errors.restMissingParameter(...missing.filter((m): m is string => m !== null));
  const id = userId as string;
  const pw = password as string;
  if (id.length > 256 || pw.length > 1024) throw Errors.restBadParameter(id.length > 256 ? 'user_id' : 'password');
  return { userId: id, password: pw };
}

/**
 * POST /login (a browser form → 303 redirect; JSON → JSON with the security token) and POST|GET /logout, for
 * the local service provider.
 */
export function loginRoutes(): Router<FerryState> {
  const r = new Router<FerryState>();
  r.post('/login', async (koaCtx) => {
    const ctx = koaCtx as FerryContext;
    const s = ctx.state.services;
    if (s.settings.get().auth.sp.type !== 'local') throw Errors.restEndpointNotFound('/login');
    // A page elsewhere must not sign the browser into an account of its choosing (login CSRF).
    if (isForeignOrigin(ctx.headers, s.settings.get().base_url)) throw Errors.restSecurityTokenDidNotMatch('origin');
    const b = (ctx.request.body ?? {}) as Record<string, unknown>;
    const form = typeof ctx.is('application/x-www-form-urlencoded') === 'string';
    const back = `${basePath(ctx)}${safeReturnPath(b.return)}`;
    try {
      const { userId, password } = credentials(b);
      const result = await s.accounts.login(userId, password, throttleAddress(ctx.req.socket.remoteAddress ?? '', ctx.headers), ctx.cookies.get(DEVICE_COOKIE));
      // The browser's previous session (another account, or this one from a stale page) ends with the new one.
      await s.accounts.logout(ctx.cookies.get(SESSION_COOKIE));
      setSessionCookie(ctx, result.token, SESSION_MAX_S);
      setCookie(ctx, DEVICE_COOKIE, result.deviceToken, DEVICE_MAX_S);
      ctx.set('Cache-Control', 'no-store');
      if (form) {
        ctx.redirect(back);
        ctx.status = 303;
      } else {
        ctx.body = { user_id: result.userId, csrf_token: result.csrfToken };
      }
    } catch (e) {
      const wait = e instanceof ServiceError && e.status === 429 ? String(e.details?.[0]?.split('=')[1] ?? 900) : null;
      if (wait) ctx.set('Retry-After', wait);
      // A browser's form comes back to the form, which says what went wrong in the page's language.
      if (form && e instanceof ServiceError && (e.status === 401 || wait)) {
        const why = wait ? `wait=${wait}` : 'failed=1';
        ctx.redirect(`${basePath(ctx)}/login?${why}&return=${encodeURIComponent(safeReturnPath(b.return))}`);
        ctx.status = 303;
        return;
      }
      throw e;
    }
  });
  // POST needs the security token like any cookie-authenticated change (checked by the authenticate
  // middleware); GET (the page header's link) only ends the session, which no other site gains anything by.
  const logout = async (koaCtx: unknown) => {
    const ctx = koaCtx as FerryContext;
    await ctx.state.services.accounts.logout(ctx.cookies.get(SESSION_COOKIE));
    setSessionCookie(ctx, '', 0);
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method === 'GET') {
      ctx.redirect(`${basePath(ctx)}/login`);
    } else {
      ctx.type = 'application/json';
      ctx.body = 'true';
    }
  };
  r.post('/logout', logout);
  r.get('/logout', logout);
  return r;
}
