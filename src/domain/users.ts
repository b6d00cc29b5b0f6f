import { Errors } from './errors';
import type { Clock } from './services';
import type { UserDirectory } from '../auth/header-sp';
import { randomSecret } from '../auth/passwords';

/** A user as stored: created on first authenticated sight, with the preferences of the spec's object. */
export interface UserRecord {
  id: string;
  lang: string | null;
  aupTicked: boolean;
  transferPreferences: string[];
  guestPreferences: string[];
  additionalAttributes: Record<string, unknown>;
  created: number;
  lastActivity: number | null;
}

/** What the users service needs from storage; the SQLite repository implements it. */
export interface UserStore {
  /** Creates or refreshes the user; returns the stored e-mails. */
  upsertSeen(id: string, emails: string[], now: number): string[];
  record(id: string): UserRecord | undefined;
  emails(id: string): string[];
  setEmails(id: string, emails: string[]): void;
  listIds(): string[];
  remoteSecret(id: string): string | null;
  setRemoteSecret(id: string, secret: string | null): void;
  setLang(id: string, lang: string | null): void;
  isDbAdmin(id: string): boolean;
  addAdmin(id: string, now: number): boolean;
  removeAdmin(id: string): boolean;
  listAdmins(): string[];
}

/** Users as the authenticators and handlers see them: created on first sight, admin by config or DB. */
export class UsersService implements UserDirectory {
  constructor(
    private readonly store: UserStore,
    private readonly configAdmins: () => string[],
    private readonly clock: Clock,
  ) {}

  seen(userId: string, emails: string[]): { isAdmin: boolean; emails: string[] } {
    const stored = this.store.upsertSeen(userId, emails, this.clock());
    return { isAdmin: this.isAdmin(userId), emails: stored };
  }

  /** Admin by the config's `admin` list or by the admins table (ferry admin add); read on every request. */
  isAdmin(userId: string): boolean {
    return this.configAdmins().includes(userId) || this.store.isDbAdmin(userId);
  }

  lang(userId: string): string | null {
    return this.store.record(userId)?.lang ?? null;
  }

  get(userId: string): UserRecord {
    const u = this.store.record(userId);
    if (!u) throw Errors.userNotFound();
    return u;
  }

  emails(userId: string): string[] {
    return this.store.emails(userId);
  }

  /** The caller validates the code against the shipped languages (bad_lang_code). */
  setLang(userId: string, lang: string): void {
    this.get(userId);
    this.store.setLang(userId, lang);
  }

  /** The user's remote-user secret (spec: remote_config), created on first need or replaced when rotating. */
  remoteSecret(userId: string, rotate = false): string {
    this.get(userId);
    let secret = this.store.remoteSecret(userId);
    if (!secret || rotate) {
      secret = randomSecret();
      this.store.setRemoteSecret(userId, secret);
    }
    return secret;
  }

  /** True when the user has a remote-user secret to sign with (without creating one). */
  hasRemoteSecret(userId: string): boolean {
    return userId.length <= 256 && this.store.remoteSecret(userId) !== null;
  }

  addAdmin(userId: string): void {
    if (!userId || userId.length > 256) throw Errors.restBadParameter('user_id');
    this.store.addAdmin(userId, this.clock());
  }

  /** Only admins of the database can be removed; those of the config file stay until the file changes. */
  removeAdmin(userId: string): void {
    if (!this.store.removeAdmin(userId)) throw Errors.userNotFound(`${userId} is not an admin in the database`);
  }

  admins(): { database: string[]; config: string[] } {
    return { database: this.store.listAdmins(), config: this.configAdmins() };
  }
}
