import type { ProviderKind } from '../identity-provider';
import type { ProviderDeps } from './deps';
import type { SpOidc } from '../../config/defaults';

/** Placeholder until the OIDC provider module lands: configuring it stops the start with a clear message. */
export const oidcKind: ProviderKind<SpOidc, ProviderDeps> = {
  type: 'oidc',
  create() {
    throw new Error('auth.sp: the "oidc" kind is not available in this build');
  },
};
