import Router from '@koa/router';
import { Errors, isError, retryAfterOf, ServiceError } from '../../domain/errors';
import { SESSION_COOKIE, SESSION_MAX_S } from '../../auth/sessions';
import { isForeignOrigin } from '../../auth/origin';
import { requestClientAddress } from '../client-address';
import { LoginFailed, type IdentityProvider, type ProviderRequest } from '../../auth/identity-provider';
import { AccountElsewhere } from '../../domain/sign-in';
import type { LoginResult } from '../../domain/accounts';
import type { FerryContext, FerryState } from '../state';
import { basePath } from '../web/layout';
import { idpChoicePage, loginFailurePage } from '../web/app-pages';
import { safeReturnPath } from '../return-path';

/** How long a redirect sign-in may take between its start and the identity provider's answer. */
const FLOW_MAX_S = 600;
const FLOW_COOKIE = 'ferry_login_flow';

const secureBase = (ctx: FerryContext) => ctx.state.services.settings.get().base_url.startsWith('https:');

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
  const secure = secureBase(ctx);
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: `${basePath(ctx)}/`,
    maxAge: maxAgeS * 1000,
    overwrite: true,
  });
}

/**
 * A redirect sign-in's flow (state, nonce, PKCE verifier, the page to come back to) waits for the callback in a
 * cookie of this browser, scoped to the provider's paths. It is not signed: it only ever holds values this
 * browser's own sign-in made, and a forged one gains nothing, as the identity provider's answer must match it
 * (state, nonce, verifier). SameSite=Lax lets it ride on the provider's redirect back (a top-level GET); a
 * provider that answers with a cross-site POST (`crossSiteCallback`) needs SameSite=None, which browsers accept
 * only with Secure.
 */
function setFlowCookie(ctx: FerryContext, p: IdentityProvider, value: string, maxAgeS: number): void {
  const secure = secureBase(ctx);
  if (secure) ctx.cookies.secure = true;
  const sameSite = p.crossSiteCallback && secure ? 'none' : 'lax';
  ctx.cookies.set(FLOW_COOKIE, value, {
    httpOnly: true,
    sameSite,
    secure,
    path: `${basePath(ctx)}/login/${p.id}/`,
    maxAge: maxAgeS * 1000,
    overwrite: true,
  });
}

function readFlow(ctx: FerryContext): { flow: Record<string, string>; back: string } | null {
  const raw = ctx.cookies.get(FLOW_COOKIE);
  if (!raw || raw.length > 4096) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { f?: unknown; r?: unknown };
    if (typeof v.f !== 'object' || v.f === null) return null;
    const flow = Object.fromEntries(
      Object.entries(v.f as Record<string, unknown>).filter(([, x]) => typeof x === 'string'),
    ) as Record<string, string>;
    return { flow, back: safeReturnPath(v.r) };
  } catch {
    return null;
  }
}

/** The login body's fields: both present, of sane length (checked here, at the edge). */
function credentials(b: Record<string, unknown>): { userId: string; password: string } {
  const { user_id: userId, password } = b;
  const missing = [
    typeof userId === 'string' && userId ? null : 'user_id',
    typeof password === 'string' && password ? null : 'password',
  ];
  if (missing.some((m) => m)) throw Errors.restMissingParameter(...missing.filter((m): m is string => m !== null));
  const id = userId as string;
  const pw = password as string;
  if (id.length > 256 || pw.length > 1024) throw Errors.restBadParameter(id.length > 256 ? 'user_id' : 'password');
  return { userId: id, password: pw };
}

function providerRequest(ctx: FerryContext): ProviderRequest {
  const base = new URL(ctx.state.services.settings.get().base_url);
  // The URL the identity provider sent the browser to: base_url's origin and path, then the route and query.
  const url = new URL(`${base.origin}${basePath(ctx)}${ctx.path}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
  return {
    method: ctx.method === 'POST' ? 'POST' : 'GET',
    url,
    body: ctx.method === 'POST' ? ((ctx.request.body ?? {}) as Record<string, unknown>) : {},
    clientAddress: requestClientAddress(ctx),
  };
}

/** The browser gets the session the sign-in service opened (src/domain/sign-in.ts). */
async function startSession(ctx: FerryContext, result: LoginResult): Promise<void> {
  // The browser's previous session (another account, or this one from a stale page) ends with the new one.
  await ctx.state.services.accounts.logout(ctx.cookies.get(SESSION_COOKIE));
  setSessionCookie(ctx, result.token, SESSION_MAX_S);
  ctx.set('Cache-Control', 'no-store');
}

/**
 * A sign-in that failed shows a page saying why in the person's language, and writes one log line (the
 * provider's detail; never a token, code or secret). Anything else a provider throws is the same page
 * ("unavailable"), never a 500 and never a stack trace.
 */
function failed(ctx: FerryContext, p: IdentityProvider, e: unknown): void {
  const f =
    e instanceof LoginFailed
      ? e
      : e instanceof AccountElsewhere
        ? new LoginFailed('other_account', e.detail)
        : new LoginFailed(
            'unavailable',
            `unexpected ${(e as Error)?.name ?? 'error'}: ${String((e as Error)?.message ?? e).slice(0, 200)}`,
          );
  ctx.state.services.log.info(`sign-in through ${p.id} refused (${f.reason}): ${f.detail}`);
  ctx.set('Cache-Control', 'no-store');
  loginFailurePage(ctx, p, f.reason, f.status);
}

/**
 * The identity providers' routes (src/auth/identity-provider.ts lists them): POST /login and /login/<id> for
 * password forms (a browser form → 303; JSON → JSON with the security token), /login/<id> and its callback
 * for redirect sign-ins, /login/<id>/logout for a logout the provider starts, and GET|POST /logout.
 */
export function loginRoutes(): Router<FerryState> {
  const r = new Router<FerryState>();

  const passwordLogin = async (ctx: FerryContext, p: IdentityProvider | undefined, all: boolean) => {
    const s = ctx.state.services;
    if (!p?.checkPassword) throw Errors.restEndpointNotFound('/login');
    // A page elsewhere must not sign the browser into an account of its choosing (login CSRF).
    if (isForeignOrigin(ctx.headers, s.settings.get().base_url)) throw Errors.restSecurityTokenDidNotMatch('origin');
    const b = (ctx.request.body ?? {}) as Record<string, unknown>;
    const form = typeof ctx.is('application/x-www-form-urlencoded') === 'string';
    const back = `${basePath(ctx)}${safeReturnPath(b.return)}`;
    try {
      const { userId, password } = credentials(b);
      // POST /login: every provider with a password form, in the order of the sign-in service; /login/<id>: that one.
      const { person, session: result } = await s.signIn.withPassword(
        all ? s.identity.list.filter((x) => x.style === 'password') : [p],
        userId,
        password,
        requestClientAddress(ctx),
        ctx.cookies.get(DEVICE_COOKIE),
      );
      await startSession(ctx, result);
      if (person.device) setCookie(ctx, DEVICE_COOKIE, person.device, DEVICE_MAX_S);
      if (form) {
        ctx.redirect(back);
        ctx.status = 303;
      } else {
        ctx.body = { user_id: result.userId, csrf_token: result.csrfToken };
      }
    } catch (e) {
      if (e instanceof AccountElsewhere)
        s.log.info(`sign-in through ${e.provider} refused (other_account): ${e.detail}`);
      const err = e instanceof LoginFailed ? loginFailedAsError(ctx, p, e) : e;
      const wait = isError(err, Errors.rateLimitExceeded) ? String(retryAfterOf(err) ?? 900) : null;
      if (wait) ctx.set('Retry-After', wait);
      // A browser's form comes back to the form, which says what went wrong in the page's language.
      if (
        form &&
        err instanceof ServiceError &&
        (err.status === 401 || err.status === 503 || err instanceof AccountElsewhere || wait)
      ) {
        const why = wait ? `wait=${wait}` : err.status === 503 ? 'unavailable=1' : 'failed=1';
        // The page's first form is the one meant when none is named (and older pages' links keep their shape).
        const which =
          p.localAccounts && p === ctx.state.services.identity.firstPassword()
            ? ''
            : `&provider=${encodeURIComponent(p.id)}`;
        ctx.redirect(`${basePath(ctx)}/login?${why}${which}&return=${encodeURIComponent(safeReturnPath(b.return))}`);
        ctx.status = 303;
        return;
      }
      throw err;
    }
  };
  r.post('/login', (ctx) =>
    passwordLogin(ctx as FerryContext, (ctx as FerryContext).state.services.identity.firstPassword(), true),
  );
  r.post('/login/:provider', (ctx) =>
    passwordLogin(
      ctx as FerryContext,
      (ctx as FerryContext).state.services.identity.get(String(ctx.params.provider)),
      false,
    ),
  );

  // A redirect sign-in starts here (the login page's button): off to the identity provider.
  r.get('/login/:provider', async (koaCtx) => {
    const ctx = koaCtx as FerryContext;
    const p = ctx.state.services.identity.get(String(ctx.params.provider));
    if (!p?.start) throw Errors.restEndpointNotFound(ctx.path);
    ctx.set('Cache-Control', 'no-store');
    try {
      const started = await p.start(providerRequest(ctx));
      const back = safeReturnPath(ctx.query.return);
      if ('choose' in started) {
        idpChoicePage(ctx, p, started.choose, back);
        return;
      }
      const { location, flow } = started;
      setFlowCookie(ctx, p, Buffer.from(JSON.stringify({ f: flow, r: back })).toString('base64url'), FLOW_MAX_S);
      ctx.redirect(location);
    } catch (e) {
      failed(ctx, p, e);
    }
  });

  const callback = async (koaCtx: unknown) => {
    const ctx = koaCtx as FerryContext;
    const p = ctx.state.services.identity.get(String(ctx.params.provider));
    if (!p?.callback) throw Errors.restEndpointNotFound(ctx.path);
    const kept = readFlow(ctx);
    // The flow is spent whatever happens: a second use of the same answer finds none.
    setFlowCookie(ctx, p, '', 0);
    try {
      const person = await p.callback(providerRequest(ctx), kept?.flow ?? null);
      await startSession(ctx, await ctx.state.services.signIn.signIn(p.id, person));
      ctx.redirect(`${basePath(ctx)}${kept?.back ?? '/'}`);
    } catch (e) {
      failed(ctx, p, e);
    }
  };
  r.get('/login/:provider/callback', callback);
  r.post('/login/:provider/callback', callback);

  const remoteLogout = async (koaCtx: unknown) => {
    const ctx = koaCtx as FerryContext;
    const s = ctx.state.services;
    const p = s.identity.get(String(ctx.params.provider));
    if (!p?.remoteLogout) throw Errors.restEndpointNotFound(ctx.path);
    ctx.set('Cache-Control', 'no-store');
    try {
      const { endSessions, location, body } = await p.remoteLogout(providerRequest(ctx));
      const n = await s.accounts.endProviderSessions(p.id, endSessions);
      s.log.info(`logout started by ${p.id}: ${n} session(s) ended`);
      if (body) {
        ctx.type = body.type;
        ctx.body = body.content;
      } else {
        ctx.redirect(location ?? `${basePath(ctx)}/login`);
      }
    } catch (e) {
      failed(ctx, p, e);
    }
  };
  r.get('/login/:provider/logout', remoteLogout);

  // What the identity provider must know of ferry (its `metadata`): public, and stable.
  r.get('/login/:provider/metadata', async (koaCtx) => {
    const ctx = koaCtx as FerryContext;
    const p = ctx.state.services.identity.get(String(ctx.params.provider));
    if (!p?.metadata) throw Errors.restEndpointNotFound(ctx.path);
    const { type, body } = await p.metadata();
    ctx.type = type;
    ctx.body = body;
  });
  r.post('/login/:provider/logout', remoteLogout);

  // POST needs the security token like any cookie-authenticated change (checked by the authenticate
  // middleware); GET (the page header's link) only ends the session, which no other site gains anything by.
  // When the session's provider has a logout of its own (`logoutUrl`), GET goes on there.
  const logout = async (koaCtx: unknown) => {
    const ctx = koaCtx as FerryContext;
    const s = ctx.state.services;
    const token = ctx.cookies.get(SESSION_COOKIE);
    const session = await s.accounts.session(token);
    await s.accounts.logout(token);
    setSessionCookie(ctx, '', 0);
    ctx.set('Cache-Control', 'no-store');
    const p = session ? s.identity.get(session.provider) : undefined;
    let next: string | null = null;
    if (p?.logoutUrl && session) {
      try {
        next = await p.logoutUrl(
          { ref: session.providerRef, data: session.providerData },
          `${s.settings.get().base_url}/login`,
        );
      } catch (e) {
        // ferry's session has ended; the provider's stays, which the person can end there.
        s.log.info(`logout at ${p.id} not offered: ${(e as Error).message}`);
      }
    }
    if (ctx.method === 'GET') {
      ctx.redirect(next ?? `${basePath(ctx)}/login`);
    } else {
      ctx.type = 'application/json';
      ctx.body = 'true';
    }
  };
  r.post('/logout', logout);
  r.get('/logout', logout);
  return r;
}

/** A password provider's refusal for an API client: the catalogue's error (401, or 503 with a page-side message). */
function loginFailedAsError(ctx: FerryContext, p: IdentityProvider, e: LoginFailed): ServiceError {
  ctx.state.services.log.info(`sign-in through ${p.id} refused (${e.reason}): ${e.detail}`);
  if (e.reason === 'unavailable') return Errors.loginProviderUnavailable(p.id);
  if (e.reason === 'no_email') return Errors.restAccessForbidden('email');
  return Errors.restAuthenticationRequired('login');
}
