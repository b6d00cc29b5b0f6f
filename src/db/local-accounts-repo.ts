import { sql } from 'kysely';
import type { LocalAccountRepository } from '../domain/ports';
import { affected, Db } from './context';

/** Password hashes of the local service provider's accounts (scrypt strings, see src/auth/passwords.ts). */
export class LocalAccountsRepo implements LocalAccountRepository {
  constructor(private readonly db: Db) {}

  async passwordHash(userId: string): Promise<string | undefined> {
    const r = await this.db
      .selectFrom('local_accounts')
      .select('password_hash')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return r?.password_hash;
  }

  async setPassword(userId: string, hash: string, now: number): Promise<void> {
    await this.db
      .insertInto('local_accounts')
      .values({ user_id: userId, password_hash: hash, created: now, updated: now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: hash, updated: now }))
      .execute();
  }

  /** Creates the account only when there is no account at all, in one statement (concurrent first starts). */
  async createFirst(userId: string, hash: string, now: number): Promise<boolean> {
    const r = await sql`INSERT INTO local_accounts (user_id, password_hash, created, updated)
      SELECT ${userId}, ${hash}, ${now}, ${now} WHERE NOT EXISTS (SELECT 1 FROM local_accounts)`.execute(this.db);
    return Number(r.numAffectedRows ?? 0n) > 0;
  }

  async userIds(): Promise<string[]> {
    return (await this.db.selectFrom('local_accounts').select('user_id').orderBy('user_id').execute()).map(
      (r) => r.user_id,
    );
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom('local_accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async delete(userId: string): Promise<boolean> {
    return affected(await this.db.deleteFrom('local_accounts').where('user_id', '=', userId).execute()) > 0;
  }
}
