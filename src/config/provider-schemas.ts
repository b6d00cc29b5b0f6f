import { arrayOf, bool, type Check, describe, int, nullable, object, oneOf, str } from './checks';

/**
 * The config of each kind of identity provider: its keys, their checks and their defaults, one block per kind
 * (docs/architecture.md, "How to add … An identity provider"). `auth.sp` holds one entry or a list of them;
 * every entry has `type`, an `id` (default: its type; it names the provider's routes, /login/<id>/…) and a
 * `label` (the login page's button; default: a name for the kind).
 */
interface Common {
  id: string;
  label: string;
  /**
   * Ids of other providers whose accounts this one may sign in to: the operator says the same user id names the
   * same person in both (docs/single-sign-on.md, "User ids of several providers"). Never a local account.
   */
  link_accounts_of: string[];
  /** May adopt accounts that no provider is recorded for (made before ferry recorded one), beside other providers. */
  adopt_unattributed: boolean;
}

export interface SpLocal extends Common {
  type: 'local';
}

export interface SpHeader extends Common {
  type: 'header';
  uid_header: string;
  email_header: string;
  trusted_proxies: string[];
}

export interface SpOidc extends Common {
  type: 'oidc';
  /** The issuer's URL; its /.well-known/openid-configuration is read at start-up (discovery). */
  issuer: string;
  client_id: string;
  /** null: a public client (PKCE alone); FERRY_OIDC_CLIENT_SECRET or FERRY_OIDC_<ID>_CLIENT_SECRET override it. */
  client_secret: string | null;
  scopes: string[];
  /** The claim that names the ferry user. */
  uid_claim: 'sub' | 'preferred_username' | 'oid' | 'email';
  email_claim: string;
  name_claim: string;
  /** A claim holding a list of groups or roles; a member of one of admin_groups is an admin. */
  groups_claim: string;
  admin_groups: string[];
  /** Seconds of clock difference tolerated between ferry and the provider when checking the ID token. */
  clock_tolerance_s: number;
  /** Seconds to wait for the provider (discovery, token endpoint, keys). */
  timeout_s: number;
}

export interface SpLdap extends Common {
  type: 'ldap';
  /** ldap://host:port or ldaps://host:port. */
  url: string;
  start_tls: boolean;
  /** PEM file of the CA that signed the directory's certificate (ldaps:// and StartTLS). */
  ca_file: string | null;
  /**
   * Direct bind: the DN to bind as, with {uid} standing for the (escaped) user name, e.g.
   * "uid={uid},ou=people,dc=example,dc=org" or, for Active Directory, "{uid}@example.org". null: search then bind.
   */
  user_dn_template: string | null;
  /** Search then bind: the service account (FERRY_LDAP_BIND_PASSWORD or FERRY_LDAP_<ID>_BIND_PASSWORD override). */
  bind_dn: string | null;
  bind_password: string | null;
  user_base: string;
  /** {uid} stands for the escaped user name. */
  user_filter: string;
  uid_attribute: string;
  mail_attribute: string;
  name_attribute: string;
  /** DNs of groups whose members are admins (a member's entry in the group's member/uniqueMember, or memberOf). */
  admin_groups: string[];
  /** Seconds to wait for the directory (connect and each operation). */
  timeout_s: number;
}

export interface SpSaml extends Common {
  type: 'saml';
  /** The service provider's entity id; null: its metadata URL, base_url + /login/<id>/metadata. */
  entity_id: string | null;
  /** The service provider's private key and certificate (PEM files, made by `ferry saml keygen`): signing and decryption. */
  key_file: string;
  cert_file: string;
  /** Where the identity providers' metadata comes from: files, or http(s) URLs (a federation's aggregate). */
  idp_metadata: string[];
  /** A PEM certificate the metadata must be signed with (a federation's metadata signing key); null: not checked. */
  metadata_cert_file: string | null;
  /** Seconds between two reads of metadata from a URL (a file is read again when it changes). */
  metadata_refresh_s: number;
  /** Only these identity providers of the metadata are offered; empty: all of them. */
  idp_entity_ids: string[];
  /** The first of these attributes the assertion has names the ferry user (friendly names or urn:oid: names). */
  uid_attributes: string[];
  email_attribute: string;
  name_attributes: string[];
  /** A person with one of admin_values in one of these attributes is an admin. */
  admin_attributes: string[];
  admin_values: string[];
  /** Seconds of clock difference tolerated for NotBefore / NotOnOrAfter. */
  clock_skew_s: number;
  /** Seconds to wait for a metadata URL. */
  timeout_s: number;
}

export type SpConfig = SpLocal | SpHeader | SpOidc | SpLdap | SpSaml;
/** An entry as the file gives it: its type, and any of its kind's keys (the rest from the defaults). */
export type SpInput = {
  [T in SpConfig['type']]: Partial<Extract<SpConfig, { type: T }>> & { type: T };
}[SpConfig['type']];

const ID = /^[a-z0-9][a-z0-9-]{0,31}$/;
const common = {
  type: str(),
  id: str(ID, 'lower-case letters, digits and hyphens (at most 32)'),
  label: str(/^[^\n]{1,80}$/, 'a short label'),
  link_accounts_of: arrayOf(str(/^[a-z0-9][a-z0-9-]{0,31}$/, 'a provider id')),
  adopt_unattributed: bool,
};

interface Kind {
  fields: Record<string, Check>;
  required: string[];
  defaults: Record<string, unknown>;
}

const KINDS: Record<SpConfig['type'], Kind> = {
  local: { fields: {}, required: [], defaults: { label: 'Account' } },
  header: {
    fields: {
      uid_header: str(/^[A-Za-z0-9-]+$/, 'a header name'),
      email_header: str(/^[A-Za-z0-9-]+$/, 'a header name'),
      trusted_proxies: arrayOf(str(/^[0-9a-fA-F.:]+$/, 'an IP address')),
    },
    required: [],
    defaults: {
      label: 'Organisation',
      uid_header: 'X-Remote-User',
      email_header: 'X-Remote-Email',
      trusted_proxies: ['127.0.0.1', '::1'],
    },
  },
  oidc: {
    fields: {
      issuer: str(/^https?:\/\/[^\s?#]+$/, 'an http(s) URL'),
      client_id: str(/^\S{1,256}$/, 'a client id'),
      client_secret: nullable(str(/^\S{1,1024}$/, 'a client secret')),
      scopes: arrayOf(str(/^[\x21-\x7e]{1,64}$/, 'a scope')),
      uid_claim: oneOf(['sub', 'preferred_username', 'oid', 'email']),
      email_claim: str(/^[\w.:-]{1,64}$/, 'a claim name'),
      name_claim: str(/^[\w.:-]{1,64}$/, 'a claim name'),
      groups_claim: str(/^[\w.:/-]{1,128}$/, 'a claim name'),
      admin_groups: arrayOf(str(/\S/, 'a group name or id')),
      clock_tolerance_s: int(0, 3600),
      timeout_s: int(1, 120),
    },
    required: ['issuer', 'client_id'],
    defaults: {
      label: 'Single sign-on',
      client_secret: null,
      scopes: ['openid', 'email', 'profile'],
      uid_claim: 'sub',
      email_claim: 'email',
      name_claim: 'name',
      groups_claim: 'groups',
      admin_groups: [],
      clock_tolerance_s: 30,
      timeout_s: 10,
    },
  },
  ldap: {
    fields: {
      url: str(/^ldaps?:\/\/[^\s/?#]+\/?$/, 'an ldap:// or ldaps:// URL'),
      start_tls: bool,
      ca_file: nullable(str(/\S/, 'a file path')),
      user_dn_template: nullable(str(/\{uid\}/, 'a DN with {uid}')),
      bind_dn: nullable(str(/\S/, 'a DN')),
      bind_password: nullable(str(/^.{1,1024}$/, 'a password')),
      user_base: str(/\S/, 'a DN'),
      user_filter: str(/^\(.*\{uid\}.*\)$/, 'an LDAP filter in parentheses with {uid}'),
      uid_attribute: str(/^[A-Za-z][\w-]{0,63}$/, 'an attribute name'),
      mail_attribute: str(/^[A-Za-z][\w-]{0,63}$/, 'an attribute name'),
      name_attribute: str(/^[A-Za-z][\w-]{0,63}$/, 'an attribute name'),
      admin_groups: arrayOf(str(/=/, 'a group DN')),
      timeout_s: int(1, 120),
    },
    required: ['url'],
    defaults: {
      label: 'Directory',
      start_tls: false,
      ca_file: null,
      user_dn_template: null,
      bind_dn: null,
      bind_password: null,
      user_base: '',
      user_filter: '(uid={uid})',
      uid_attribute: 'uid',
      mail_attribute: 'mail',
      name_attribute: 'cn',
      admin_groups: [],
      timeout_s: 5,
    },
  },
  saml: {
    fields: {
      entity_id: nullable(str(/^\S{1,1024}$/, 'an entity id (a URI)')),
      key_file: str(/\S/, 'a file path'),
      cert_file: str(/\S/, 'a file path'),
      idp_metadata: arrayOf(str(/\S/, 'a metadata file or http(s) URL')),
      metadata_cert_file: nullable(str(/\S/, 'a file path')),
      metadata_refresh_s: int(60, 7 * 86400),
      idp_entity_ids: arrayOf(str(/^\S{1,1024}$/, 'an entity id')),
      uid_attributes: arrayOf(str(/^[\w.:-]{1,128}$/, 'an attribute name')),
      email_attribute: str(/^[\w.:-]{1,128}$/, 'an attribute name'),
      name_attributes: arrayOf(str(/^[\w.:-]{1,128}$/, 'an attribute name')),
      admin_attributes: arrayOf(str(/^[\w.:-]{1,128}$/, 'an attribute name')),
      admin_values: arrayOf(str(/\S/, 'an entitlement or group value')),
      clock_skew_s: int(0, 600),
      timeout_s: int(1, 120),
    },
    required: ['key_file', 'cert_file', 'idp_metadata'],
    defaults: {
      label: 'Institution (SAML)',
      entity_id: null,
      metadata_cert_file: null,
      metadata_refresh_s: 6 * 3600,
      idp_entity_ids: [],
      uid_attributes: ['eduPersonPrincipalName', 'eduPersonTargetedID', 'subject-id', 'uid'],
      email_attribute: 'mail',
      name_attributes: ['displayName', 'cn'],
      admin_attributes: ['eduPersonEntitlement', 'isMemberOf'],
      admin_values: [],
      clock_skew_s: 60,
      timeout_s: 10,
    },
  },
};

export const PROVIDER_TYPES = Object.keys(KINDS) as SpConfig['type'][];

function entryCheck(v: unknown, path: string, problems: string[]): void {
  const type = (v as { type?: unknown } | null)?.type;
  const kind = typeof type === 'string' ? KINDS[type as SpConfig['type']] : undefined;
  if (!kind || typeof v !== 'object' || v === null) {
    object({ type: oneOf(PROVIDER_TYPES) }, ['type'])(v, path, problems);
    return;
  }
  object({ ...common, ...kind.fields }, ['type', ...kind.required])(v, path, problems);
}

/** `auth.sp`: one provider or a non-empty list of them, with distinct ids; the LDAP modes are exclusive. */
export const spCheck: Check = (v, path, problems) => {
  if (!Array.isArray(v)) {
    entryCheck(v, path, problems);
    return;
  }
  if (v.length === 0) problems.push(`${path}: at least one identity provider, got an empty list`);
  v.forEach((e, i) => entryCheck(e, `${path}[${i}]`, problems));
  if (problems.length) return;
  const ids = providerConfigs(v as SpInput[]).map((p) => p.id);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (twice.length) problems.push(`${path}: each provider needs its own "id"; ${describe(twice[0])} is used twice`);
};

/** Rules between one provider's keys, checked once merged with the defaults. */
export function providerCrossChecks(list: SpConfig[]): string[] {
  const problems: string[] = [];
  for (const p of list) {
    if (p.type === 'ldap') {
      if (!p.user_dn_template && !p.user_base)
        problems.push(`auth.sp (${p.id}): set user_dn_template (direct bind) or user_base (search then bind)`);
      if (p.start_tls && p.url.startsWith('ldaps:'))
        problems.push(`auth.sp (${p.id}): start_tls is for ldap:// URLs; ldaps:// is already encrypted`);
      if (!p.user_dn_template && (p.bind_dn === null) !== (p.bind_password === null))
        problems.push(
          `auth.sp (${p.id}): bind_dn and bind_password go together (FERRY_LDAP_BIND_PASSWORD may give the password)`,
        );
    }
  }
  for (const p of list)
    if (p.type === 'saml' && p.idp_metadata.length === 0)
      problems.push(`auth.sp (${p.id}): idp_metadata needs at least one metadata file or URL`);
  if (list.filter((p) => p.type === 'header').length > 1) problems.push('auth.sp: at most one "header" provider');
  if (list.filter((p) => p.type === 'local').length > 1) problems.push('auth.sp: at most one "local" provider');
  // "local" names local accounts' owner (src/domain/sign-in.ts): another kind by that id would own them.
  for (const p of list)
    if (p.id === 'local' && p.type !== 'local') problems.push(`auth.sp: the id "local" is for the local provider`);
  const ids = new Map(list.map((p) => [p.id, p.type]));
  for (const p of list) {
    if (p.type === 'local' && (p.link_accounts_of.length > 0 || p.adopt_unattributed))
      problems.push(
        `auth.sp (${p.id}): a local account is entered with its password only (no link_accounts_of, adopt_unattributed)`,
      );
    for (const other of p.link_accounts_of)
      if (other === p.id || !ids.has(other) || ids.get(other) === 'local')
        problems.push(
          `auth.sp (${p.id}): link_accounts_of names "${other}", not another provider of auth.sp besides local`,
        );
  }
  return problems;
}

/** `auth.sp` as a list, each entry completed with its kind's defaults (the config holds what the file says). */
export function providerConfigs(sp: SpInput | SpInput[]): SpConfig[] {
  return (Array.isArray(sp) ? sp : [sp]).map(
    (e) =>
      ({
        link_accounts_of: [],
        adopt_unattributed: false,
        ...KINDS[e.type].defaults,
        ...e,
        id: e.id ?? e.type,
      }) as SpConfig,
  );
}
