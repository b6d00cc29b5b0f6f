import type { Db } from './connection';
import type { LocalAccountStore } from '../domain/accounts';

/** Password hashes of the local service provider's accounts (scrypt strings, see src/auth/passwords.ts). */
export class LocalAccountsRepo implements LocalAccountStore {
  constructor(private readonly db: Db) {}

  passwordHash(userId: string): string | undefined {
    const r = this.db.prepare('SELECT password_hash FROM local_accounts WHERE user_id = ?').get(userId) as { password_hash: string } | undefined;
    return r?.password_hash;
  }

  setPassword(userId: string, hash: string, now: number): void {
    this.db
      .prepare(
        `INSERT INTO local_accounts (user_id, password_hash, created, updated) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash, updated = excluded.updated`,
      )
      .run(userId, hash, now, now);
  }

  /** Creates the account only when there is no account at all, in one statement (concurrent first starts). */
  createFirst(userId: string, hash: string, now: number): boolean {
    return (
      this.db
        .prepare(
          `INSERT INTO local_accounts (user_id, password_hash, created, updated)
           SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM local_accounts)`,
        )
        .run(userId, hash, now, now).changes > 0
    );
  }

  userIds(): string[] {
    return (this.db.prepare('SELECT user_id FROM local_accounts ORDER BY user_id').all() as { user_id: string }[]).map((r) => r.user_id);
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM local_accounts').get() as { n: number }).n;
  }

  delete(userId: string): boolean {
    return this.db.prepare('DELETE FROM local_accounts WHERE user_id = ?').run(userId).changes > 0;
  }
}
