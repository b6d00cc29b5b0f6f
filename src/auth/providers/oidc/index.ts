import type { IdentityKind } from '../kind';
import { oidcSchema, oidcSecretFromEnv } from './config';
import { OidcProvider } from './provider';

/** OpenID Connect: the authorization code flow with PKCE (src/auth/providers/oidc/provider.ts). */
export const oidcKind: IdentityKind<typeof oidcSchema> = {
  type: 'oidc',
  schema: oidcSchema,
  secrets: ['client_secret'],
  fromEnv: oidcSecretFromEnv,
  create: (cfg, deps) => new OidcProvider(cfg, deps),
};
