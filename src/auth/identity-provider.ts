import type { Authenticator } from './principal';
import type { SignedInPerson } from '../domain/sign-in';

/**
 * The seam every way of signing in goes through (docs/architecture.md, "How to add … An identity provider"). A
 * provider vouches for a person; the sign-in service (src/domain/sign-in.ts) turns that into a ferry user and a
 * session, and the HTTP layer (src/http/routes/login.ts) shows the provider on the login page and routes its
 * requests:
 *
 *   GET  /login                      the login page: a form per password provider, a button per redirect provider
 *   POST /login/<id>                 a password provider's form (POST /login: every password provider, in the
 *                                    sign-in service's order)
 *   GET  /login/<id>                 a redirect provider's start: off to the identity provider
 *   GET|POST /login/<id>/callback    its answer (the redirect_uri, or the assertion consumer service)
 *   GET|POST /login/<id>/logout      a logout the identity provider starts (front channel: single logout)
 *   GET  /login/<id>/metadata        what the identity provider must know of ferry (service provider metadata)
 *   GET|POST /logout                 ferry's logout, then the provider's own when it has one (RP-initiated)
 *
 * Providers know nothing of Koa: they get plain requests and answer plain values, and say why a sign-in failed
 * with a LoginFailed, which the HTTP layer shows as a page (and logs as one line) — never a 500.
 */

/** A person as a provider vouches for them (the domain's: src/domain/sign-in.ts). */
export type { SignedInPerson } from '../domain/sign-in';

/** A request at one of a provider's routes, as the HTTP layer hands it over. */
export interface ProviderRequest {
  method: 'GET' | 'POST';
  /** The URL as received, on base_url's origin and path (what a callback is checked against). */
  url: URL;
  /** A POST's parsed form or JSON body; {} for GET. */
  body: Record<string, unknown>;
  /** The address the login throttle counts (the client's, behind a local reverse proxy). */
  clientAddress: string;
}

/** Where a redirect provider sends the browser, and what it must find again at the callback. */
export interface RedirectStart {
  location: string;
  /**
   * Kept until the callback in a cookie of this browser only, HttpOnly, for 10 minutes, and handed to
   * `callback` (state, nonce, PKCE verifier). A flow cookie binds the callback to the browser that started it.
   */
  flow: Record<string, string>;
}

/** What a logout the identity provider started ends, and how ferry answers it. */
export interface RemoteLogout {
  endSessions: string[];
  location: string | null;
  body?: { type: string; content: string };
}

/** A provider with several identity providers behind it (a federation) asks the person to pick one first. */
export interface ChooseFirst {
  /** `id` goes back to `start` as the query's `idp`. */
  choose: Array<{ id: string; label: string }>;
}

/** The state a ferry session keeps for its provider. */
export interface ProviderSession {
  ref: string | null;
  data: string | null;
}

/**
 * How a provider signs people in:
 * - `password`: a user name and password form on the login page, posted to /login/<id>;
 * - `redirect`: a button on the login page; the browser goes to the identity provider and comes back to
 *   /login/<id>/callback (GET or POST);
 * - `proxy`: something in front of ferry signs people in (the header kind); ferry shows no form for it.
 */
export type LoginStyle = 'password' | 'redirect' | 'proxy';

export interface IdentityProvider {
  /** From the config (`auth.sp[].id`): names its routes and the sessions it made. */
  readonly id: string;
  /** Its kind (`auth.sp[].type`). */
  readonly type: string;
  /** The login page's button or form title. */
  readonly label: string;
  readonly style: LoginStyle;
  /** Its users have local accounts (ferry user …): the profile's password form, the admin's accounts tab. */
  readonly localAccounts: boolean;
  /** `password` style: checks the credentials (throttled), or throws LoginFailed or a ServiceError (401, 429, 503). */
  checkPassword?(userId: string, password: string, clientAddress: string, device?: string): Promise<SignedInPerson>;
  /** `redirect` style: where the browser goes to sign in. */
  start?(req: ProviderRequest): Promise<RedirectStart | ChooseFirst>;
  /**
   * `redirect` style: the identity provider's answer at /login/<id>/callback, with the flow kept at `start`
   * (null when the browser brought none: an IdP-initiated sign-in, which the provider may accept or refuse).
   */
  callback?(req: ProviderRequest, flow: Record<string, string> | null): Promise<SignedInPerson>;
  /**
   * The callback is a cross-site POST (an HTTP-POST binding): the flow cookie is then SameSite=None, which
   * browsers accept only over https (base_url https://).
   */
  readonly crossSiteCallback?: boolean;
  /** Where the browser goes after ferry's logout to end the identity provider's session too, or null. */
  logoutUrl?(session: ProviderSession, afterLogout: string): Promise<string | null>;
  /**
   * A logout the identity provider starts, at /login/<id>/logout: the session references (`sessionRef`) whose
   * ferry sessions end, and the answer: the browser sent on to `location` (null: ferry's login page), or,
   * when `body` is given, that body with 200 (a back-channel request from the provider's server: a
   * back-channel logout, a SOAP binding).
   */
  remoteLogout?(req: ProviderRequest): Promise<RemoteLogout>;
  /** What the identity provider must know of ferry, served at /login/<id>/metadata (service provider metadata). */
  metadata?(): Promise<{ type: string; body: string }>;
  /** Per-request sign-in (the header kind), evaluated where the spec's order puts the service provider. */
  readonly authenticator?: Authenticator;
  close?(): Promise<void>;
}

/**
 * Why a sign-in failed, for the page the person sees: `failed` (a tampered, replayed or stale answer, a bad
 * token), `denied` (the person cancelled or the provider refused), `no_email` (the account has no usable
 * e-mail address), `unavailable` (the provider cannot be reached or is misconfigured), `other_account` (the
 * user id is an account of another provider: src/domain/sign-in.ts).
 */
export type LoginFailure = 'failed' | 'denied' | 'no_email' | 'unavailable' | 'other_account';

const STATUS: Record<LoginFailure, number> = {
  failed: 400,
  denied: 403,
  no_email: 403,
  unavailable: 503,
  other_account: 403,
};

/** A sign-in that did not work: `detail` is the one log line (never a token, code or secret). */
export class LoginFailed extends Error {
  readonly status: number;
  constructor(
    readonly reason: LoginFailure,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'LoginFailed';
    this.status = STATUS[reason];
  }
}
