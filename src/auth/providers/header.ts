import type { SpHeader } from '../../config/defaults';
import { HeaderServiceProvider } from '../header-sp';
import type { IdentityProvider, ProviderKind } from '../identity-provider';
import type { ProviderDeps } from './deps';

/**
 * A reverse proxy in front of ferry signs people in and passes who they are in headers (src/auth/header-sp.ts).
 * Every request authenticates itself; ferry has no login form and no session of its own for it.
 */
export const headerKind: ProviderKind<SpHeader, ProviderDeps> = {
  type: 'header',
  create(cfg, deps): IdentityProvider {
    return {
      id: cfg.id,
      type: 'header',
      label: cfg.label,
      style: 'proxy',
      localAccounts: false,
      authenticator: new HeaderServiceProvider(cfg, (person) => deps.signIn.admit(cfg.id, person)),
    };
  },
};
