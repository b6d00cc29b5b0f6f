import { HeaderServiceProvider } from '../../header-sp';
import type { IdentityProvider } from '../../identity-provider';
import type { ProviderDeps } from '../deps';
import type { SpHeader } from './config';

/**
 * A reverse proxy in front of ferry signs people in and passes who they are in headers (src/auth/header-sp.ts).
 * Every request authenticates itself; ferry has no login form and no session of its own for it.
 */
export function headerProvider(cfg: SpHeader, deps: ProviderDeps): IdentityProvider {
  return {
    id: cfg.id,
    type: cfg.type,
    label: cfg.label,
    style: 'proxy',
    localAccounts: false,
    authenticator: new HeaderServiceProvider(cfg, (person) => deps.signIn.admit(cfg.id, person)),
  };
}
