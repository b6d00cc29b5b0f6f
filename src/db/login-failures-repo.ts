import type { LoginFailureRepository } from '../domain/ports';
import { sql } from 'kysely';
import type { Db, RepoContext } from './context';

/** Failed logins per account and per client address: shared by every process and node on the database. */
export class LoginFailuresRepo implements LoginFailureRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  /** Transaction-level advisory locks, always taken in the order given; SQLite's write lock already serialises. */
  async hold(keys: string[]): Promise<void> {
    if (this.ctx.dialect !== 'postgres') return;
    for (const key of keys) await sql`SELECT pg_advisory_xact_lock(hashtext(${`ferry:login:${key}`}))`.execute(this.db);
  }

  async add(key: string, at: number): Promise<number> {
    const { id } = await this.db
      .insertInto('login_failures')
      .values({ key, at })
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  }

  async window(key: string, since: number): Promise<{ count: number; oldest: number | null }> {
    const r = await this.db
      .selectFrom('login_failures')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
      .where('key', '=', key)
      .where('at', '>', since)
      .executeTakeFirstOrThrow();
    return { count: Number(r.n), oldest: r.oldest === null ? null : Number(r.oldest) };
  }

  async remove(id: number): Promise<void> {
    await this.db.deleteFrom('login_failures').where('id', '=', id).execute();
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('login_failures').where('key', '=', key).execute();
  }
}
