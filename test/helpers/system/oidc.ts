import http from 'node:http';

/**
 * A real OpenID provider for the tests: panva's oidc-provider (the certified implementation), in this process
 * on 127.0.0.1, with its development sign-in pages (any password; the login names an account below) and
 * RP-initiated logout. Its issuer must be known before ferry's config is written, and ferry's callback before
 * the provider is built: reserve a port, start ferry, then `startOidcProvider(port, …)`.
 */
export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  groups?: string[];
}

/** A fault the provider's token endpoint puts into the ID token it returns (re-signed with its own key unless `bad_signature`). */
export type TokenFault = null | 'wrong_audience' | 'expired' | 'future' | 'slightly_ahead' | 'bad_signature';

export interface OidcServer {
  issuer: string;
  fault: TokenFault;
  close(): Promise<void>;
}

/** The package ships no types; its one entry point used here is typed below. */
const OIDC_PROVIDER = 'oidc-provider';

export async function startOidcProvider(
  port: number,
  opts: {
    redirectUris: string[];
    postLogoutRedirectUris: string[];
    accounts: Record<string, TestAccount>;
    clientSecret?: string;
    backchannelLogoutUri?: string;
  },
): Promise<OidcServer> {
  const { default: Provider } = (await import(OIDC_PROVIDER)) as unknown as {
    default: new (issuer: string, config: Record<string, unknown>) => OidcProviderApp;
  };
  const jose = await import('jose');
  const issuer = `http://127.0.0.1:${port}`;
  const state: OidcServer = { issuer, fault: null, close: async () => {} };
  // The provider signs with a key the test holds, so a faulty token can be signed exactly as the provider would.
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const other = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: [
      {
        client_id: 'ferry',
        client_secret: opts.clientSecret ?? 'ferry-client-secret',
        redirect_uris: opts.redirectUris,
        post_logout_redirect_uris: opts.postLogoutRedirectUris,
        token_endpoint_auth_method: 'client_secret_post',
        ...(opts.backchannelLogoutUri
          ? { backchannel_logout_uri: opts.backchannelLogoutUri, backchannel_logout_session_required: true }
          : {}),
      },
    ],
    async findAccount(_ctx: unknown, sub: string) {
      const a = opts.accounts[sub];
      if (!a) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...a }) };
    },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
      groups: ['groups'],
    },
    scopes: ['openid', 'email', 'profile', 'groups', 'offline_access'],
    // The claims go into the ID token itself (as Entra ID and Keycloak put them), not only userinfo.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // The provider refuses to call special-use addresses (SSRF protection), and ferry listens on 127.0.0.1 here:
    // its back-channel logout requests go out without that check on this test bench.
    fetch: (url: string, options: Record<string, unknown>) => {
      delete options.dispatcher;
      return globalThis.fetch(url, options);
    },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      backchannelLogout: { enabled: true },
    },
  });
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (!state.fault || ctx.path !== '/token' || !body?.id_token) return;
    const claims = jose.decodeJwt(body.id_token) as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    if (state.fault === 'wrong_audience') claims.aud = 'someone-else';
    if (state.fault === 'expired') Object.assign(claims, { iat: now - 7200, exp: now - 3600 });
    // The provider's clock ahead of ferry's: its tokens are valid only from a moment ferry has not reached (nbf,
    // as Entra ID sets it).
    if (state.fault === 'future') Object.assign(claims, { iat: now + 900, nbf: now + 900, exp: now + 4500 });
    if (state.fault === 'slightly_ahead') Object.assign(claims, { iat: now + 10, nbf: now + 10, exp: now + 3610 });
    const key = state.fault === 'bad_signature' ? other.privateKey : privateKey;
    body.id_token = await new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(key);
  });
  const server = http.createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

interface OidcProviderApp {
  callback(): http.RequestListener;
  use(mw: (ctx: { path: string; body: unknown }, next: () => Promise<void>) => Promise<void>): void;
}
