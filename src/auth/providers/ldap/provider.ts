import fs from 'node:fs';
import { Errors, ServiceError } from '../../../domain/errors';
import { isEmail } from '../../../domain/transfer-input';
import { LoginFailed, type IdentityProvider, type SignedInPerson } from '../../identity-provider';
import type { ProviderDeps } from '../deps';
import type { SpLdap } from './config';

type Ldapts = typeof import('ldapts');
type Client = InstanceType<Ldapts['Client']>;
type Entry = Record<string, unknown> & { dn: string };

/**
 * LDAP and Active Directory (docs/single-sign-on.md), through ldapts, in one of two modes: search then bind
 * (a service account, or an anonymous search, finds the person's entry by `user_filter`, then their password
 * is checked by binding as that entry), or a direct bind as `user_dn_template`. ldaps:// or StartTLS with the
 * CA of `ca_file`. Every check runs under the login throttle; a directory that cannot be reached within
 * `timeout_s` answers 503 login_provider_unavailable, never a hang. The user name reaches the filter and the
 * DN escaped (RFC 4515, RFC 4514): "*)(uid=*" is a name like any other.
 */
export class LdapProvider implements IdentityProvider {
  readonly type = 'ldap';
  readonly style = 'password' as const;
  readonly localAccounts = false;
  readonly id: string;
  readonly label: string;
  private readonly ca: Buffer | undefined;

  constructor(
    private readonly cfg: SpLdap,
    private readonly deps: ProviderDeps,
  ) {
    this.id = cfg.id;
    this.label = cfg.label;
    // Read at start-up: a missing CA file stops the start with its path, not the first sign-in.
    this.ca = cfg.ca_file ? fs.readFileSync(cfg.ca_file) : undefined;
  }

  async checkPassword(userId: string, password: string, clientAddress: string): Promise<SignedInPerson> {
    if (!userId || userId.length > 256 || /[\x00-\x1f]/.test(userId) || !password)
      throw Errors.restAuthenticationRequired('login');
    return this.deps.accounts.throttled(`${this.id}:${userId.toLowerCase()}`, clientAddress, () =>
      this.check(userId, password),
    );
  }

  private async check(userId: string, password: string): Promise<SignedInPerson> {
    const { Client, InvalidCredentialsError } = await import('ldapts');
    const ms = this.cfg.timeout_s * 1000;
    const tlsOptions = { ...(this.ca ? { ca: [this.ca] } : {}), minVersion: 'TLSv1.2' as const };
    // ldapts speaks TLS from the first byte whenever tlsOptions are given: only for ldaps://.
    const client: Client = new Client({
      url: this.cfg.url,
      timeout: ms,
      connectTimeout: ms,
      ...(this.cfg.url.startsWith('ldaps:') ? { tlsOptions } : {}),
    });
    const attributes = [this.cfg.uid_attribute, this.cfg.mail_attribute, this.cfg.name_attribute, 'memberOf'];
    try {
      if (this.cfg.start_tls) await client.startTLS(tlsOptions);
      let entry: Entry | undefined;
      if (this.cfg.user_dn_template) {
        const dn = this.cfg.user_dn_template.replace('{uid}', escapeDn(userId));
        await client.bind(dn, password);
        // An Active Directory UPN ("{uid}@example.org") is not a DN: the entry is then found by the filter.
        entry = dn.includes('=')
          ? ((await client.search(dn, { scope: 'base', attributes })).searchEntries[0] as Entry | undefined)
          : await this.find(client, userId, attributes);
      } else {
        if (this.cfg.bind_dn) await client.bind(this.cfg.bind_dn, this.cfg.bind_password ?? '');
        entry = await this.find(client, userId, attributes);
        // Unknown (or ambiguous) user: the same answer as a wrong password.
        if (!entry) throw Errors.restAuthenticationRequired('login');
        await client.bind(entry.dn, password);
      }
      if (!entry) throw new LoginFailed('failed', `user ${userId} bound but its entry cannot be read`);
      return await this.person(client, userId, entry);
    } catch (e) {
      if (e instanceof InvalidCredentialsError) throw Errors.restAuthenticationRequired('login');
      if (e instanceof ServiceError || e instanceof LoginFailed) throw e;
      this.deps.logLine(`sign-in through ${this.id}: the directory ${this.cfg.url} did not answer: ${describe(e)}`);
      throw Errors.loginProviderUnavailable(this.id);
    } finally {
      await client.unbind().catch(() => {});
    }
  }

  private async find(client: Client, userId: string, attributes: string[]): Promise<Entry | undefined> {
    const filter = this.cfg.user_filter.replaceAll('{uid}', escapeFilter(userId));
    const { searchEntries } = await client.search(this.cfg.user_base, {
      scope: 'sub',
      filter,
      attributes,
      sizeLimit: 2,
    });
    return searchEntries.length === 1 ? (searchEntries[0] as Entry) : undefined;
  }

  private async person(client: Client, userId: string, entry: Entry): Promise<SignedInPerson> {
    const uid = first(entry[this.cfg.uid_attribute]) ?? userId;
    const emails = all(entry[this.cfg.mail_attribute]).filter(isEmail);
    if (emails.length === 0)
      throw new LoginFailed('no_email', `user ${uid} has no "${this.cfg.mail_attribute}" attribute`);
    return {
      uid,
      emails,
      displayName: first(entry[this.cfg.name_attribute]) ?? null,
      admin: await this.isAdmin(client, uid, entry),
    };
  }

  /** A member of one of admin_groups: by the entry's memberOf (AD, OpenLDAP's memberof overlay) or the group's own members. */
  private async isAdmin(client: Client, uid: string, entry: Entry): Promise<boolean> {
    if (this.cfg.admin_groups.length === 0) return false;
    const wanted = new Set(this.cfg.admin_groups.map(normaliseDn));
    if (all(entry.memberOf).some((g) => wanted.has(normaliseDn(g)))) return true;
    const dn = escapeFilter(entry.dn);
    const filter = `(|(member=${dn})(uniqueMember=${dn})(memberUid=${escapeFilter(uid)}))`;
    for (const group of this.cfg.admin_groups) {
      try {
        const { searchEntries } = await client.search(group, { scope: 'base', filter, attributes: ['dn'] });
        if (searchEntries.length > 0) return true;
      } catch {
        // A group the person may not read, or that does not exist: not an admin through it.
      }
    }
    return false;
  }
}

/** RFC 4515: the characters that would end or widen a filter, as \hh. */
export function escapeFilter(v: string): string {
  return v.replace(/[\\*()\x00]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** RFC 4514: an attribute value inside a DN. */
export function escapeDn(v: string): string {
  return v
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^([ #])/, '\\$1')
    .replace(/ $/, '\\ ');
}

function normaliseDn(dn: string): string {
  return dn.replace(/\s*([,=])\s*/g, '$1').toLowerCase();
}

function all(v: unknown): string[] {
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x))).filter(Boolean);
}

function first(v: unknown): string | undefined {
  return all(v)[0];
}

function describe(e: unknown): string {
  const err = e as { name?: string; code?: unknown; message?: string };
  return [
    err?.name,
    typeof err?.code === 'string' || typeof err?.code === 'number' ? String(err.code) : '',
    String(err?.message ?? e).slice(0, 200),
  ]
    .filter(Boolean)
    .join(' ');
}
