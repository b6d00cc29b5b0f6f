import type { Config } from '../../config/defaults';
import { providerConfigs, type SpConfig } from '../../config/provider-schemas';
import type { IdentityProvider, ProviderKind } from '../identity-provider';
import { IdentityProviders } from '../identity-providers';
import type { ProviderDeps } from './deps';
import { headerKind } from './header';
import { ldapKind } from './ldap';
import { localKind } from './local';
import { oidcKind } from './oidc';
import { samlKind } from './saml';

/**
 * The kinds of identity provider ferry has (docs/architecture.md, "How to add … An identity provider"): a new
 * kind is a module in src/auth/providers/, its config block in src/config/provider-schemas.ts, and a line here.
 */
const PROVIDER_KINDS: { [T in SpConfig['type']]: ProviderKind<Extract<SpConfig, { type: T }>, ProviderDeps> } = {
  local: localKind,
  header: headerKind,
  oidc: oidcKind,
  ldap: ldapKind,
  saml: samlKind,
};

/** Every provider the config's `auth.sp` lists, built in its order. */
export async function buildIdentityProviders(config: Config, deps: ProviderDeps): Promise<IdentityProviders> {
  const list: IdentityProvider[] = [];
  for (const c of providerConfigs(config.auth.sp))
    list.push(await (PROVIDER_KINDS[c.type] as ProviderKind<SpConfig, ProviderDeps>).create(c, deps));
  return new IdentityProviders(list);
}
