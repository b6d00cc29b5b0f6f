import type { Configuration } from 'openid-client';
import { isEmail } from '../../../domain/transfer-input';
import {
  LoginFailed,
  type IdentityProvider,
  type ProviderRequest,
  type ProviderSession,
  type RedirectStart,
  type RemoteLogout,
  type SignedInPerson,
} from '../../identity-provider';
import { providerUrl, type ProviderDeps } from '../deps';
import type { SpOidc } from './config';

type Client = typeof import('openid-client');

/**
 * OpenID Connect (docs/single-sign-on.md): the authorization code flow with PKCE, state and nonce, through
 * openid-client. The provider's metadata comes from discovery, read on the first sign-in and again after a
 * failure (a provider down at ferry's start does not need a restart). The uid, e-mail and name come from the
 * ID token's claims, completed from the userinfo endpoint when the e-mail is not in it; admins from a groups
 * or roles claim (a dotted path such as "realm_access.roles" reaches into an object).
 */
export class OidcProvider implements IdentityProvider {
  readonly type = 'oidc';
  readonly style = 'redirect' as const;
  readonly localAccounts = false;
  readonly id: string;
  readonly label: string;
  private discovered: Promise<{ oc: Client; config: Configuration }> | null = null;
  private keys: ReturnType<typeof import('jose')['createRemoteJWKSet']> | null = null;

  constructor(
    private readonly cfg: SpOidc,
    private readonly deps: ProviderDeps,
  ) {
    this.id = cfg.id;
    this.label = cfg.label;
  }

  private get redirectUri(): string {
    return providerUrl(this.deps, this.id, '/callback');
  }

  private client(): Promise<{ oc: Client; config: Configuration }> {
    this.discovered ??= (async () => {
      const oc = await import('openid-client');
      const issuer = new URL(this.cfg.issuer);
      let config: Configuration;
      try {
        config = await oc.discovery(
          issuer,
          this.cfg.client_id,
          this.cfg.client_secret ?? undefined,
          this.cfg.client_secret ? undefined : oc.None(),
          {
            // A plain-http issuer is for a provider on the same host or a test bench; the admin chose it.
            execute: issuer.protocol === 'http:' ? [oc.allowInsecureRequests] : [],
            timeout: this.cfg.timeout_s,
          },
        );
      } catch (e) {
        throw new LoginFailed('unavailable', `discovery at ${issuer.href}: ${describe(e)}`);
      }
      config.timeout = this.cfg.timeout_s;
      // The ID token's signature is checked against the provider's keys too (openid-client skips it by default
      // for a token fetched over TLS): a token the provider's key did not sign is refused.
      oc.enableNonRepudiationChecks(config);
      // ferry's and the provider's clocks may differ a little: tokens issued "in the future" by that much pass.
      (config as unknown as Record<symbol, number>)[oc.clockTolerance] = this.cfg.clock_tolerance_s;
      return { oc, config };
    })();
    // A failed discovery is tried again at the next sign-in.
    const mine = this.discovered;
    mine.catch(() => {
      if (this.discovered === mine) this.discovered = null;
    });
    return mine;
  }

  /** The provider's metadata and keys are read again at the next use (after it failed to answer). */
  private forget(): void {
    this.discovered = null;
    this.keys = null;
  }

  async start(): Promise<RedirectStart> {
    const { oc, config } = await this.client();
    const verifier = oc.randomPKCECodeVerifier();
    const state = oc.randomState();
    const nonce = oc.randomNonce();
    const url = oc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: this.cfg.scopes.join(' '),
      code_challenge: await oc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { location: url.href, flow: { state, nonce, verifier } };
  }

  async callback(req: ProviderRequest, flow: Record<string, string> | null): Promise<SignedInPerson> {
    const error = req.url.searchParams.get('error');
    if (error)
      throw new LoginFailed(
        error === 'access_denied' || error === 'login_required' ? 'denied' : 'failed',
        `the provider answered error=${error.slice(0, 64)}`,
      );
    if (!flow?.state || !flow.nonce || !flow.verifier)
      throw new LoginFailed('failed', 'no sign-in of this browser is waiting (its flow cookie is missing or expired)');
    const { oc, config } = await this.client();
    // Checked against the address the provider was told to come back to, whatever Host the proxy forwarded.
    const current = new URL(this.redirectUri);
    current.search = req.url.search;
    let tokens: Awaited<ReturnType<Client['authorizationCodeGrant']>>;
    try {
      tokens = await oc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (e) {
      // A provider that cannot be reached, or that refuses ferry itself (a wrong client secret or id: the
      // admin's to fix), is "unavailable"; an answer refused for this sign-in only is "failed".
      const refusesClient = ['invalid_client', 'unauthorized_client'].includes(
        String((e as { error?: unknown }).error),
      );
      // A provider that did not answer is looked up again (discovery) at the next sign-in: while it is still
      // down the sign-in button then leads to ferry's "unavailable" page, not to the dead provider's address.
      if (unreachable(e)) this.forget();
      throw new LoginFailed(
        unreachable(e) || refusesClient ? 'unavailable' : 'failed',
        `code exchange: ${describe(e)}`,
      );
    }
    const claims: Record<string, unknown> = { ...(tokens.claims() ?? {}) };
    const sub = String(claims.sub ?? '');
    const email = (c: Record<string, unknown>) =>
      c.email_verified === false ? undefined : claimAt(c, this.cfg.email_claim);
    if (email(claims) === undefined && config.serverMetadata().userinfo_endpoint && tokens.access_token) {
      try {
        const info = await oc.fetchUserInfo(config, tokens.access_token, sub);
        for (const [k, v] of Object.entries(info)) if (!(k in claims)) claims[k] = v;
      } catch (e) {
        this.deps.logLine(`sign-in through ${this.id}: userinfo not read: ${describe(e)}`);
      }
    }
    const uid = claimAt(claims, this.cfg.uid_claim);
    if (typeof uid !== 'string' || !uid || uid.length > 256 || /[\s\x00-\x1f]/.test(uid))
      throw new LoginFailed('failed', `the ID token has no usable "${this.cfg.uid_claim}" claim`);
    const emails = list(email(claims)).filter(isEmail);
    if (emails.length === 0)
      throw new LoginFailed('no_email', `user ${uid} has no "${this.cfg.email_claim}" claim (verified e-mail address)`);
    const groups = list(claimAt(claims, this.cfg.groups_claim));
    const name = claimAt(claims, this.cfg.name_claim);
    return {
      uid: this.cfg.uid_claim === 'email' ? uid.toLowerCase() : uid,
      emails,
      displayName: typeof name === 'string' && name ? name : null,
      admin: groups.some((g) => this.cfg.admin_groups.includes(g)),
      sessionRef: typeof claims.sid === 'string' ? claims.sid : null,
      sessionData: tokens.id_token ?? null,
    };
  }

  /**
   * Back-channel logout: the provider's server posts a logout token naming the session (`sid`) it ended; the
   * ferry sessions that sign-in made end too. The token is checked like an ID token (signature by the
   * provider's keys, issuer, audience, age) and must carry the back-channel event and no nonce.
   */
  async remoteLogout(req: ProviderRequest): Promise<RemoteLogout> {
    const token = req.body.logout_token;
    if (req.method !== 'POST' || typeof token !== 'string' || token.length > 16_384)
      throw new LoginFailed('failed', 'a back-channel logout without a logout_token');
    const { config } = await this.client();
    const meta = config.serverMetadata();
    if (!meta.jwks_uri) throw new LoginFailed('unavailable', 'the provider publishes no jwks_uri');
    const jose = await import('jose');
    this.keys ??= jose.createRemoteJWKSet(new URL(meta.jwks_uri), { timeoutDuration: this.cfg.timeout_s * 1000 });
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jose.jwtVerify(token, this.keys, {
        issuer: meta.issuer,
        audience: this.cfg.client_id,
        clockTolerance: this.cfg.clock_tolerance_s,
        maxTokenAge: '10m',
      }));
    } catch (e) {
      throw new LoginFailed('failed', `logout token refused: ${describe(e)}`);
    }
    const events = claims.events as Record<string, unknown> | undefined;
    if (typeof events !== 'object' || events === null || !(BACKCHANNEL_EVENT in events) || 'nonce' in claims)
      throw new LoginFailed('failed', 'the token is not a logout token');
    if (typeof claims.sid !== 'string') throw new LoginFailed('failed', 'the logout token names no session (sid)');
    return { endSessions: [claims.sid], location: null, body: { type: 'application/json', content: '{}' } };
  }

  /** RP-initiated logout, when the provider has an end_session_endpoint. */
  async logoutUrl(session: ProviderSession, afterLogout: string): Promise<string | null> {
    const { oc, config } = await this.client();
    if (!config.serverMetadata().end_session_endpoint) return null;
    const params: Record<string, string> = { client_id: this.cfg.client_id, post_logout_redirect_uri: afterLogout };
    if (session.data) params.id_token_hint = session.data;
    return oc.buildEndSessionUrl(config, params).href;
  }
}

/** The events claim that makes a JWT a back-channel logout token (OpenID Connect Back-Channel Logout 1.0). */
const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** A claim by name, or by a dotted path into nested objects ("realm_access.roles"). */
function claimAt(claims: Record<string, unknown>, name: string): unknown {
  if (name in claims) return claims[name];
  let v: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

function list(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The provider could not be reached (network, timeout), as opposed to an answer that was refused. */
function unreachable(e: unknown): boolean {
  const name = (e as Error)?.name;
  return (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    (name === 'TypeError' && String((e as Error).message).includes('fetch'))
  );
}

/**
 * An error of openid-client as one log line: its code and message, and the provider's `error` field for a
 * refused code exchange. Never the request or the response body (they hold the code and the tokens).
 */
function describe(e: unknown): string {
  const err = e as {
    code?: unknown;
    error?: unknown;
    message?: unknown;
    cause?: { code?: unknown; message?: unknown };
  };
  const parts = [
    typeof err?.code === 'string' ? err.code : '',
    typeof err?.error === 'string' ? `error=${err.error}` : '',
    String(err?.message ?? e).slice(0, 200),
  ];
  if (err?.cause && typeof err.cause.code === 'string') parts.push(`(${err.cause.code})`);
  return parts.filter(Boolean).join(' ');
}
