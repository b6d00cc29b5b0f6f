import type { IdentityKind } from '../kind';
import { ldapPasswordFromEnv, ldapProblems, ldapSchema, ldapStartupProblems } from './config';
import { LdapProvider } from './provider';

/** LDAP and Active Directory: a password form checked against the directory (src/auth/providers/ldap/provider.ts). */
export const ldapKind: IdentityKind<typeof ldapSchema> = {
  type: 'ldap',
  schema: ldapSchema,
  secrets: ['bind_password'],
  fromEnv: ldapPasswordFromEnv,
  problems: ldapProblems,
  startupProblems: ldapStartupProblems,
  create: (cfg, deps) => new LdapProvider(cfg, deps),
};
