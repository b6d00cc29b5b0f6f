import { z } from 'zod';
import { Errors, isError, retryAfterOf, ServiceError } from '../../domain/errors';
import { SESSION_COOKIE, SESSION_MAX_S } from '../../auth/sessions';
import { isForeignOrigin } from '../../auth/origin';
import { requestClientAddress } from '../client-address';
import { LoginFailed, type IdentityProvider, type ProviderRequest } from '../../auth/identity-provider';
import { AccountElsewhere } from '../../domain/sign-in';
import type { LoginResult } from '../../domain/accounts';
import type { FerryContext } from '../state';
import { basePath } from '../web/layout';
import { idpChoicePage, loginFailurePage, loginPage, loginPageQuery } from '../web/app-pages';
import { safeReturnPath } from '../return-path';
import type { Api } from '../api';
import { publicAccess, type Step } from '../access';
import { anyObject, failsAs, input, parseParams } from '../input';

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

/** The flow cookie as this browser's sign-in wrote it; its values not strings are dropped. */
const flowCookie = z.object({
  f: z
    .record(z.string(), z.unknown())
    .transform((f) =>
      Object.fromEntries(Object.entries(f).filter((e): e is [string, string] => z.string().safeParse(e[1]).success)),
    ),
  r: z.unknown().optional(),
});

function readFlow(ctx: FerryContext): { flow: Record<string, string>; back: string } | null {
  const raw = ctx.cookies.get(FLOW_COOKIE);
  if (!raw || raw.length > 4096) return null;
  try {
    const v = flowCookie.safeParse(JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')));
    return v.success ? { flow: v.data.f, back: safeReturnPath(v.data.r) } : null;
  } catch {
    return null;
  }
}

const missing = failsAs(Errors.restMissingParameter);
/** The login body: both fields present, of sane length (checked here, at the edge); `return`, the page to go back to. */
export const credentials = z.object({
  user_id: z.string(missing).min(1, missing).max(256),
  password: z.string(missing).min(1, missing).max(1024),
  return: z.unknown().optional(),
});
const providerParams = z.object({ provider: z.string() });
/** What an identity provider's answer carries (a form post, a query) is the provider's to read. */
const providerInput = input({ params: providerParams });
const providerPostInput = input({ params: providerParams, body: anyObject });

function providerRequest(ctx: FerryContext, body: Record<string, unknown> = {}): ProviderRequest {
  const base = new URL(ctx.state.services.settings.get().base_url);
  // The URL the identity provider sent the browser to: base_url's origin and path, then the route and query.
  const url = new URL(`${base.origin}${basePath(ctx)}${ctx.path}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
  return {
    method: ctx.method === 'POST' ? 'POST' : 'GET',
    url,
    body,
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
 * A password form's provider (POST /login: the first; /login/<id>: that one), found before its body is read, so
 * that an unknown one is a 404 and a foreign page's post a 403 whatever they send. Left on ctx.state.resource.
 */
const passwordProvider =
  (all: boolean): Step =>
  (ctx, next) => {
    const s = ctx.state.services;
    const p = all ? s.identity.firstPassword() : s.identity.get(parseParams(ctx, providerParams).provider);
    if (!p?.checkPassword) throw Errors.restEndpointNotFound('/login');
    // A page elsewhere must not sign the browser into an account of its choosing (login CSRF).
    if (isForeignOrigin(ctx.headers, s.settings.get().base_url)) throw Errors.restSecurityTokenDidNotMatch('origin');
    ctx.state.resource = p;
    return next();
  };

/**
 * The identity providers' routes (src/auth/identity-provider.ts lists them), all public: the login page,
 * POST /login and /login/<id> for password forms (a browser form → 303; JSON → JSON with the security token),
 * /login/<id> and its callback for redirect sign-ins, /login/<id>/logout for a logout the provider starts,
 * and GET|POST /logout.
 */
export function loginRoutes(api: Api): void {
  // The login form, or the upload page for one already signed in.
  api.get('/login', publicAccess, input({ query: loginPageQuery }), (ctx, { query }) => {
    if (ctx.state.principal.type === 'user') {
      ctx.redirect(`${basePath(ctx)}/`);
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = loginPage(ctx, query).value;
  });

  const passwordLogin = async (ctx: FerryContext, b: z.output<typeof credentials>, all: boolean) => {
    const s = ctx.state.services;
    const p = ctx.state.resource as IdentityProvider;
    const form = Boolean(ctx.is('application/x-www-form-urlencoded'));
    const back = `${basePath(ctx)}${safeReturnPath(b.return)}`;
    try {
      const { user_id: userId, password } = b;
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
  api.post('/login', publicAccess, passwordProvider(true), input({ body: credentials }), (ctx, { body }) =>
    passwordLogin(ctx, body, true),
  );
  api.post(
    '/login/:provider',
    publicAccess,
    passwordProvider(false),
    input({ params: providerParams, body: credentials }),
    (ctx, { body }) => passwordLogin(ctx, body, false),
  );

  // A redirect sign-in starts here (the login page's button): off to the identity provider, which reads the rest
  // of the query itself (a federation's `idp`).
  const startInput = input({ params: providerParams, query: z.object({ return: z.unknown().optional() }) });
  api.get('/login/:provider', publicAccess, startInput, async (ctx, { params, query }) => {
    const p = ctx.state.services.identity.get(params.provider);
    if (!p?.start) throw Errors.restEndpointNotFound(ctx.path);
    ctx.set('Cache-Control', 'no-store');
    try {
      const started = await p.start(providerRequest(ctx));
      const back = safeReturnPath(query.return);
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

  type ProviderInput = { params: z.output<typeof providerParams>; body?: Record<string, unknown> };
  const callback = async (ctx: FerryContext, { params, body }: ProviderInput) => {
    const p = ctx.state.services.identity.get(params.provider);
    if (!p?.callback) throw Errors.restEndpointNotFound(ctx.path);
    const kept = readFlow(ctx);
    // The flow is spent whatever happens: a second use of the same answer finds none.
    setFlowCookie(ctx, p, '', 0);
    try {
      const person = await p.callback(providerRequest(ctx, body), kept?.flow ?? null);
      await startSession(ctx, await ctx.state.services.signIn.signIn(p.id, person));
      ctx.redirect(`${basePath(ctx)}${kept?.back ?? '/'}`);
    } catch (e) {
      failed(ctx, p, e);
    }
  };
  api.get('/login/:provider/callback', publicAccess, providerInput, callback);
  api.post('/login/:provider/callback', publicAccess, providerPostInput, callback);

  const remoteLogout = async (ctx: FerryContext, { params, body }: ProviderInput) => {
    const s = ctx.state.services;
    const p = s.identity.get(params.provider);
    if (!p?.remoteLogout) throw Errors.restEndpointNotFound(ctx.path);
    ctx.set('Cache-Control', 'no-store');
    try {
      const { endSessions, location, body: answer } = await p.remoteLogout(providerRequest(ctx, body));
      const n = await s.accounts.endProviderSessions(p.id, endSessions);
      s.log.info(`logout started by ${p.id}: ${n} session(s) ended`);
      if (answer) {
        ctx.type = answer.type;
        ctx.body = answer.content;
      } else {
        ctx.redirect(location ?? `${basePath(ctx)}/login`);
      }
    } catch (e) {
      failed(ctx, p, e);
    }
  };
  api.get('/login/:provider/logout', publicAccess, providerInput, remoteLogout);

  // What the identity provider must know of ferry (its `metadata`): public, and stable.
  api.get('/login/:provider/metadata', publicAccess, providerInput, async (ctx, { params }) => {
    const p = ctx.state.services.identity.get(params.provider);
    if (!p?.metadata) throw Errors.restEndpointNotFound(ctx.path);
    const { type, body } = await p.metadata();
    ctx.type = type;
    ctx.body = body;
  });
  api.post('/login/:provider/logout', publicAccess, providerPostInput, remoteLogout);

  // POST needs the security token like any cookie-authenticated change (checked by the authenticate
  // middleware); GET (the page header's link) only ends the session, which no other site gains anything by.
  // When the session's provider has a logout of its own (`logoutUrl`), GET goes on there.
  const logout = async (ctx: FerryContext) => {
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
  // POST /logout's body, if any, says nothing.
  api.post('/logout', publicAccess, input({ body: z.object({}) }), logout);
  api.get('/logout', publicAccess, logout);
}

/** A password provider's refusal for an API client: the catalogue's error (401, or 503 with a page-side message). */
function loginFailedAsError(ctx: FerryContext, p: IdentityProvider, e: LoginFailed): ServiceError {
  ctx.state.services.log.info(`sign-in through ${p.id} refused (${e.reason}): ${e.detail}`);
  if (e.reason === 'unavailable') return Errors.loginProviderUnavailable(p.id);
  if (e.reason === 'no_email') return Errors.restAccessForbidden('email');
  return Errors.restAuthenticationRequired('login');
}
