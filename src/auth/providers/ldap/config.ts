import fs from 'node:fs';
import type { z } from 'zod';
import { zArrayOf, zBool, zInt, zStr } from '../../../config/zod-checks';
import { entrySchema } from '../entry';

const ATTRIBUTE = /^[A-Za-z][\w-]{0,63}$/;

export const ldapSchema = entrySchema('ldap', 'Directory', {
  /** ldap://host:port or ldaps://host:port. */
  url: zStr(/^ldaps?:\/\/[^\s/?#]+\/?$/, 'an ldap:// or ldaps:// URL'),
  start_tls: zBool().default(false),
  /** PEM file of the CA that signed the directory's certificate (ldaps:// and StartTLS). */
  ca_file: zStr(/\S/, 'a file path').nullable().default(null),
  /**
   * Direct bind: the DN to bind as, with {uid} standing for the (escaped) user name, e.g.
   * "uid={uid},ou=people,dc=example,dc=org" or, for Active Directory, "{uid}@example.org". null: search then bind.
   */
  user_dn_template: zStr(/\{uid\}/, 'a DN with {uid}')
    .nullable()
    .default(null),
  /** Search then bind: the service account (the environment may give the password: ldapPasswordFromEnv). */
  bind_dn: zStr(/\S/, 'a DN').nullable().default(null),
  bind_password: zStr(/^.{1,1024}$/, 'a password')
    .nullable()
    .default(null),
  user_base: zStr(/\S/, 'a DN').default(''),
  /** {uid} stands for the escaped user name. */
  user_filter: zStr(/^\(.*\{uid\}.*\)$/, 'an LDAP filter in parentheses with {uid}').default('(uid={uid})'),
  uid_attribute: zStr(ATTRIBUTE, 'an attribute name').default('uid'),
  mail_attribute: zStr(ATTRIBUTE, 'an attribute name').default('mail'),
  name_attribute: zStr(ATTRIBUTE, 'an attribute name').default('cn'),
  /** DNs of groups whose members are admins (a member's entry in the group's member/uniqueMember, or memberOf). */
  admin_groups: zArrayOf(zStr(/=/, 'a group DN')).default([]),
  /** Seconds to wait for the directory (connect and each operation). */
  timeout_s: zInt(1, 120).default(5),
});
export type SpLdap = z.output<typeof ldapSchema>;

/** The two modes (direct bind, search then bind) are exclusive, each complete. */
export function ldapProblems(p: SpLdap): string[] {
  const problems: string[] = [];
  if (!p.user_dn_template && !p.user_base)
    problems.push(`auth.sp (${p.id}): set user_dn_template (direct bind) or user_base (search then bind)`);
  if (p.start_tls && p.url.startsWith('ldaps:'))
    problems.push(`auth.sp (${p.id}): start_tls is for ldap:// URLs; ldaps:// is already encrypted`);
  if (!p.user_dn_template && (p.bind_dn === null) !== (p.bind_password === null))
    problems.push(
      `auth.sp (${p.id}): bind_dn and bind_password go together (FERRY_LDAP_BIND_PASSWORD may give the password)`,
    );
  return problems;
}

/**
 * The service account's password from the environment, so it need not sit in the file:
 * FERRY_LDAP_<ID>_BIND_PASSWORD (the provider's id in capitals, "-" as "_") before FERRY_LDAP_BIND_PASSWORD.
 */
export function ldapPasswordFromEnv(envId: string, env: NodeJS.ProcessEnv): Partial<SpLdap> {
  const password = env[`FERRY_LDAP_${envId}_BIND_PASSWORD`] || env.FERRY_LDAP_BIND_PASSWORD;
  return password ? { bind_password: password } : {};
}

/** The CA file is read at start-up: `ferry config check` says so when it cannot be. */
export function ldapStartupProblems(p: SpLdap): string[] {
  if (!p.ca_file) return [];
  try {
    fs.accessSync(p.ca_file, fs.constants.R_OK);
    return [];
  } catch (e) {
    return [`auth.sp (${p.id}) ca_file: ${p.ca_file} cannot be read (${(e as NodeJS.ErrnoException).code})`];
  }
}
