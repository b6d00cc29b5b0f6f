import type { Session, SessionRepository } from '../domain/ports';
import { affected, Db, firstRow, RepoContext } from './context';

/** Browser sessions, made by the identity providers' sign-ins; `id` is the SHA-256 of the cookie's token, never the token. */
export class SessionsRepo implements SessionRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async create(s: Session): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id: s.id,
        user_id: s.userId,
        csrf_token: s.csrfToken,
        created: s.created,
        last_seen: s.lastSeen,
        provider: s.provider,
        provider_admin: s.providerAdmin ? 1 : 0,
        provider_ref: s.providerRef,
        provider_data: s.providerData,
      })
      .execute();
  }

  async get(id: string): Promise<Session | undefined> {
    const r = await firstRow(this.db, this.ctx, this.db.selectFrom('sessions').selectAll().where('id', '=', id));
    return (
      r && {
        id: r.id,
        userId: r.user_id,
        csrfToken: r.csrf_token,
        created: Number(r.created),
        lastSeen: Number(r.last_seen),
        provider: r.provider,
        providerAdmin: Number(r.provider_admin) === 1,
        providerRef: r.provider_ref,
        providerData: r.provider_data,
      }
    );
  }

  async touch(id: string, now: number): Promise<void> {
    await this.db.updateTable('sessions').set({ last_seen: now }).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  async deleteOf(userId: string, exceptId?: string): Promise<void> {
    let q = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    await q.execute();
  }

  async deleteByRef(provider: string, refs: string[]): Promise<number> {
    if (refs.length === 0) return 0;
    const r = await this.db
      .deleteFrom('sessions')
      .where('provider', '=', provider)
      .where('provider_ref', 'in', refs)
      .execute();
    return affected(r);
  }

  async deleteStale(idleBefore: number, createdBefore: number): Promise<number> {
    const r = await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('last_seen', '<', idleBefore), eb('created', '<', createdBefore)]))
      .execute();
    return affected(r);
  }
}
