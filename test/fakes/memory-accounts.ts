import type {
  AccountOwner,
  LocalAccountRepository,
  Session,
  SessionRepository,
  UserRecord,
  UserRepository,
  UserSummary,
} from '../../src/domain/ports';
import { pageOf, type Page } from '../../src/domain/paging';

/**
 * Users, local accounts and sessions in memory, for the sign-in rule's tests (test/unit/sign-in.test.ts): what
 * src/db/users-repo.ts, local-accounts-repo.ts and sessions-repo.ts do, in maps. Kept apart from the transfers'
 * state: the sign-in service runs no unit of work.
 */
interface UserRow {
  record: UserRecord;
  emails: string[];
  provider: string | null;
  providerAdmin: boolean;
  links: Set<string>;
  remoteSecret: string | null;
  displayName: string | null;
}

export class MemoryUsers implements UserRepository {
  readonly rows = new Map<string, UserRow>();
  readonly admins = new Set<string>();
  /** The local accounts' password hashes (the local-accounts repository shares them). */
  readonly hashes = new Map<string, string>();

  private make(id: string, now: number, provider: string | null): UserRow {
    const row: UserRow = {
      record: {
        id,
        lang: null,
        aupTicked: false,
        transferPreferences: [],
        guestPreferences: [],
        additionalAttributes: {},
        created: now,
        lastActivity: now,
      },
      emails: [],
      provider,
      providerAdmin: false,
      links: new Set(),
      remoteSecret: null,
      displayName: null,
    };
    this.rows.set(id, row);
    return row;
  }

  async upsertSeen(id: string, emails: string[], now: number): Promise<string[]> {
    const row = this.rows.get(id) ?? this.make(id, now, null);
    row.record.lastActivity = now;
    if (emails.length) row.emails = [...new Set(emails.map((e) => e.toLowerCase()))];
    return [...row.emails];
  }
  async record(id: string): Promise<UserRecord | undefined> {
    return this.rows.get(id)?.record;
  }
  async emails(id: string): Promise<string[]> {
    return [...(this.rows.get(id)?.emails ?? [])];
  }
  async setEmails(id: string, emails: string[]): Promise<void> {
    const row = this.rows.get(id);
    if (row) row.emails = [...new Set(emails.map((e) => e.toLowerCase()))];
  }
  async listIds(): Promise<string[]> {
    return [...this.rows.keys()].sort();
  }
  async listPage(page: Page | null): Promise<UserSummary[]> {
    const ids = pageOf([...this.rows.keys()].sort(), page, (id) => id);
    return ids.map((id) => {
      const row = this.rows.get(id) as UserRow;
      return {
        id,
        emails: [...row.emails],
        local: this.hashes.has(id),
        dbAdmin: this.admins.has(id),
        provider: row.provider,
        providerAdmin: row.providerAdmin,
        links: [...row.links].sort(),
      };
    });
  }
  async remoteSecret(id: string): Promise<string | null> {
    return this.rows.get(id)?.remoteSecret ?? null;
  }
  async setRemoteSecret(id: string, secret: string | null): Promise<void> {
    const row = this.rows.get(id);
    if (row) row.remoteSecret = secret;
  }
  async setLang(id: string, lang: string | null): Promise<void> {
    const row = this.rows.get(id);
    if (row) row.record.lang = lang;
  }
  async lang(id: string): Promise<string | null> {
    return this.rows.get(id)?.record.lang ?? null;
  }
  async isDbAdmin(id: string): Promise<boolean> {
    return this.admins.has(id);
  }
  async addAdmin(id: string): Promise<boolean> {
    const had = this.admins.has(id);
    this.admins.add(id);
    return !had;
  }
  async removeAdmin(id: string): Promise<boolean> {
    return this.admins.delete(id);
  }
  async listAdmins(): Promise<string[]> {
    return [...this.admins].sort();
  }
  async setDisplayName(id: string, name: string | null): Promise<void> {
    const row = this.rows.get(id);
    if (row) row.displayName = name;
  }
  async owner(id: string, _fresh?: boolean): Promise<AccountOwner | undefined> {
    const row = this.rows.get(id);
    if (!row) return undefined;
    return {
      provider: row.provider,
      hasPassword: this.hashes.has(id),
      links: [...row.links].sort(),
      providerAdmin: row.providerAdmin,
    };
  }
  async createFor(id: string, provider: string, now: number): Promise<void> {
    if (!this.rows.has(id)) this.make(id, now, provider);
  }
  async adopt(id: string, provider: string): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || row.provider !== null) return false;
    row.provider = provider;
    return true;
  }
  async setProviderAdmin(id: string, admin: boolean): Promise<void> {
    const row = this.rows.get(id);
    if (row) row.providerAdmin = admin;
  }
  async link(id: string, provider: string): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || row.links.has(provider)) return false;
    row.links.add(provider);
    return true;
  }
  async unlink(id: string, provider: string): Promise<boolean> {
    return this.rows.get(id)?.links.delete(provider) ?? false;
  }
}

export class MemoryLocalAccounts implements LocalAccountRepository {
  constructor(private readonly users: MemoryUsers) {}
  async passwordHash(userId: string): Promise<string | undefined> {
    return this.users.hashes.get(userId);
  }
  async setPassword(userId: string, hash: string): Promise<void> {
    this.users.hashes.set(userId, hash);
  }
  async createFirst(userId: string, hash: string): Promise<boolean> {
    if (this.users.hashes.size > 0) return false;
    this.users.hashes.set(userId, hash);
    return true;
  }
  async userIds(): Promise<string[]> {
    return [...this.users.hashes.keys()].sort();
  }
  async count(): Promise<number> {
    return this.users.hashes.size;
  }
  async delete(userId: string): Promise<boolean> {
    return this.users.hashes.delete(userId);
  }
}

export class MemorySessions implements SessionRepository {
  readonly rows = new Map<string, Session>();
  async create(s: Session): Promise<void> {
    this.rows.set(s.id, { ...s });
  }
  async get(id: string): Promise<Session | undefined> {
    return this.rows.get(id);
  }
  async touch(id: string, now: number): Promise<void> {
    const s = this.rows.get(id);
    if (s) s.lastSeen = now;
  }
  async delete(id: string): Promise<void> {
    this.rows.delete(id);
  }
  async deleteOf(userId: string, exceptId?: string): Promise<void> {
    for (const [id, s] of this.rows) if (s.userId === userId && id !== exceptId) this.rows.delete(id);
  }
  async deleteStale(idleBefore: number, createdBefore: number): Promise<number> {
    let n = 0;
    for (const [id, s] of this.rows)
      if (s.lastSeen < idleBefore || s.created < createdBefore) {
        this.rows.delete(id);
        n++;
      }
    return n;
  }
  async deleteByRef(provider: string, refs: string[]): Promise<number> {
    let n = 0;
    for (const [id, s] of this.rows)
      if (s.provider === provider && s.providerRef !== null && refs.includes(s.providerRef)) {
        this.rows.delete(id);
        n++;
      }
    return n;
  }
}
