import { Errors } from './errors';
import type { Clock, IdGenerator, UserRecord, UserRepository } from './ports';

export type { UserRecord } from './ports';

/** What authenticators need of users: created on first sight, e-mails recorded, admin or not. */
export interface UserDirectory {
  seen(userId: string, emails: string[]): Promise<{ isAdmin: boolean; emails: string[] }>;
}

/** Users as the authenticators and handlers see them: created on first sight, admin by config or DB. */
export interface UsersDeps {
  store: UserRepository;
  /** The config's `admin` list. */
  configAdmins: () => string[];
  clock: Clock;
  ids: IdGenerator;
}

export class UsersService implements UserDirectory {
  private readonly store: UserRepository;
  private readonly configAdmins: () => string[];
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  // Services are built from one deps object each, as src/app.ts builds them all.
  constructor(d: UsersDeps) {
    this.store = d.store;
    this.configAdmins = d.configAdmins;
    this.clock = d.clock;
    this.ids = d.ids;
  }

  async seen(userId: string, emails: string[]): Promise<{ isAdmin: boolean; emails: string[] }> {
    const stored = await this.store.upsertSeen(userId, emails, this.clock());
    return { isAdmin: await this.isAdmin(userId), emails: stored };
  }

  /** The config's `admin` list (a page of users tells admins from it and the admins table together). */
  configAdminIds(): string[] {
    return this.configAdmins();
  }

  /** Admin by the config's `admin` list or by the admins table (ferry admin add); read on every request. */
  async isAdmin(userId: string): Promise<boolean> {
    return this.configAdmins().includes(userId) || (await this.store.isDbAdmin(userId));
  }

  /** The name an identity provider gave at sign-in. */
  async setDisplayName(userId: string, name: string): Promise<void> {
    await this.store.setDisplayName(userId, name.slice(0, 256));
  }

  lang(userId: string): Promise<string | null> {
    return this.store.lang(userId);
  }

  async get(userId: string): Promise<UserRecord> {
    const u = await this.store.record(userId);
    if (!u) throw Errors.userNotFound();
    return u;
  }

  emails(userId: string): Promise<string[]> {
    return this.store.emails(userId);
  }

  /** The caller validates the code against the shipped languages (bad_lang_code). */
  async setLang(userId: string, lang: string): Promise<void> {
    await this.get(userId);
    await this.store.setLang(userId, lang);
  }

  /** The user's remote-user secret (spec: remote_config), created on first need or replaced when rotating. */
  async remoteSecret(userId: string, rotate = false): Promise<string> {
    await this.get(userId);
    let secret = await this.store.remoteSecret(userId);
    if (!secret || rotate) {
      secret = this.ids.secret();
      await this.store.setRemoteSecret(userId, secret);
    }
    return secret;
  }

  /** True when the user has a remote-user secret to sign with (without creating one). */
  async hasRemoteSecret(userId: string): Promise<boolean> {
    return userId.length <= 256 && (await this.store.remoteSecret(userId)) !== null;
  }

  async addAdmin(userId: string): Promise<void> {
    if (!userId || userId.length > 256) throw Errors.restBadParameter('user_id');
    await this.store.addAdmin(userId, this.clock());
  }

  /** Only admins of the database can be removed; those of the config file stay until the file changes. */
  async removeAdmin(userId: string): Promise<void> {
    if (!(await this.store.removeAdmin(userId))) throw Errors.userNotFound(`${userId} is not an admin in the database`);
  }

  async admins(): Promise<{ database: string[]; config: string[] }> {
    return { database: await this.store.listAdmins(), config: this.configAdmins() };
  }
}
