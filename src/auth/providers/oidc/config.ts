import type { z } from 'zod';
import { zArrayOf, zInt, zOneOf, zStr } from '../../../config/zod-checks';
import { entrySchema } from '../entry';

const CLAIM = /^[\w.:-]{1,64}$/;

export const oidcSchema = entrySchema('oidc', 'Single sign-on', {
  /** The issuer's URL; its /.well-known/openid-configuration is read at start-up (discovery). */
  issuer: zStr(/^https?:\/\/[^\s?#]+$/, 'an http(s) URL'),
  client_id: zStr(/^\S{1,256}$/, 'a client id'),
  /** null: a public client (PKCE alone); the environment may give it (oidcSecretFromEnv). */
  client_secret: zStr(/^\S{1,1024}$/, 'a client secret')
    .nullable()
    .default(null),
  scopes: zArrayOf(zStr(/^[\x21-\x7e]{1,64}$/, 'a scope')).default(['openid', 'email', 'profile']),
  /** The claim that names the ferry user. */
  uid_claim: zOneOf(['sub', 'preferred_username', 'oid', 'email']).default('sub'),
  email_claim: zStr(CLAIM, 'a claim name').default('email'),
  name_claim: zStr(CLAIM, 'a claim name').default('name'),
  /** A claim holding a list of groups or roles; a member of one of admin_groups is an admin. */
  groups_claim: zStr(/^[\w.:/-]{1,128}$/, 'a claim name').default('groups'),
  admin_groups: zArrayOf(zStr(/\S/, 'a group name or id')).default([]),
  /** Seconds of clock difference tolerated between ferry and the provider when checking the ID token. */
  clock_tolerance_s: zInt(0, 3600).default(30),
  /** Seconds to wait for the provider (discovery, token endpoint, keys). */
  timeout_s: zInt(1, 120).default(10),
});
export type SpOidc = z.output<typeof oidcSchema>;

/**
 * The client secret from the environment, so it need not sit in the file: FERRY_OIDC_<ID>_CLIENT_SECRET (the
 * provider's id in capitals, "-" as "_") before FERRY_OIDC_CLIENT_SECRET.
 */
export function oidcSecretFromEnv(envId: string, env: NodeJS.ProcessEnv): Partial<SpOidc> {
  const secret = env[`FERRY_OIDC_${envId}_CLIENT_SECRET`] || env.FERRY_OIDC_CLIENT_SECRET;
  return secret ? { client_secret: secret } : {};
}
