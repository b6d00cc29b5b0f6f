import type { IdentityProvider, SignedInPerson } from '../../identity-provider';
import type { ProviderDeps } from '../deps';
import type { SpLocal } from './config';

/** Local accounts (`ferry user add`): a user name and password form, checked under the login throttle. */
export function localProvider(cfg: SpLocal, deps: ProviderDeps): IdentityProvider {
  return {
    id: cfg.id,
    type: cfg.type,
    label: cfg.label,
    style: 'password',
    localAccounts: true,
    async checkPassword(userId, password, clientAddress, device): Promise<SignedInPerson> {
      const kept = await deps.accounts.verifyPassword(userId, password, clientAddress, device);
      // The account's e-mail addresses are those `ferry user add` recorded: none given here keeps them.
      return { uid: userId, emails: [], displayName: null, admin: false, device: kept };
    },
  };
}
