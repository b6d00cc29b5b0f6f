import type { Clock } from './services';
import type { UserDirectory } from '../auth/header-sp';

/** What the users service needs from storage; the SQLite repository implements it. */
export interface UserStore {
  upsertSeen(id: string, emails: string[], now: number): void;
  emails(id: string): string[];
  isDbAdmin(id: string): boolean;
  find(id: string): { lang: string | null } | undefined;
}

/** Users as the authenticators and handlers see them: created on first sight, admin by config or DB. */
export class UsersService implements UserDirectory {
  constructor(
    private readonly store: UserStore,
    private readonly configAdmins: () => string[],
    private readonly clock: Clock,
  ) {}

  seen(userId: string, emails: string[]): { isAdmin: boolean; emails: string[] } {
    this.store.upsertSeen(userId, emails, this.clock());
    return { isAdmin: this.isAdmin(userId), emails: this.store.emails(userId) };
  }

  isAdmin(userId: string): boolean {
    return this.configAdmins().includes(userId) || this.store.isDbAdmin(userId);
  }

  lang(userId: string): string | null {
    return this.store.find(userId)?.lang ?? null;
  }
}
