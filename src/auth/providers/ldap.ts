import type { ProviderKind } from '../identity-provider';
import type { ProviderDeps } from './deps';
import type { SpLdap } from '../../config/defaults';

/** Placeholder until the LDAP provider module lands: configuring it stops the start with a clear message. */
export const ldapKind: ProviderKind<SpLdap, ProviderDeps> = {
  type: 'ldap',
  create() {
    throw new Error('auth.sp: the "ldap" kind is not available in this build');
  },
};
