import type { Guest, GuestStatus, TrackingError } from '../domain/model';
import type { GuestRepository, NewGuest } from '../domain/ports';
import { numericAfter, type Page } from '../domain/paging';
import { Db, RepoContext, slices } from './context';
import type { GuestsTable } from './schema';
import type { Selectable } from 'kysely';

type GuestRow = Selectable<GuestsTable>;

/** The guests table, with each Guest's tracking errors (tracking_errors rows with target_type 'Guest'). */
export class GuestsRepo implements GuestRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async insert(g: NewGuest): Promise<Guest> {
    const row = await this.db
      .insertInto('guests')
      .values({
        user_id: g.userId,
        user_email: g.userEmail,
        email: g.email,
        token: g.token,
        subject: g.subject,
        message: g.message,
        options: JSON.stringify(g.options),
        transfer_options: JSON.stringify(g.transferOptions),
        status: 'available',
        lang: g.lang,
        created: g.created,
        expires: g.expires,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toGuest(row, []);
  }

  async find(id: number): Promise<Guest | undefined> {
    const row = await this.db.selectFrom('guests').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? (await this.withErrors([row]))[0] : undefined;
  }

  async lock(id: number): Promise<Guest | undefined> {
    let q = this.db.selectFrom('guests').selectAll().where('id', '=', id);
    if (this.ctx.dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row ? (await this.withErrors([row]))[0] : undefined;
  }

  async findByToken(token: string): Promise<Guest | undefined> {
    const row = await this.db.selectFrom('guests').selectAll().where('token', '=', token).executeTakeFirst();
    return row ? (await this.withErrors([row]))[0] : undefined;
  }

  async listOpenOf(userId: string): Promise<Guest[]> {
    const rows = await this.db
      .selectFrom('guests')
      .selectAll()
      .where('user_id', '=', userId)
      .where('status', '=', 'available')
      .orderBy('id', 'desc')
      .execute();
    return this.withErrors(rows);
  }

  async listOpen(): Promise<Guest[]> {
    const rows = await this.db
      .selectFrom('guests')
      .selectAll()
      .where('status', '=', 'available')
      .orderBy('id', 'desc')
      .execute();
    return this.withErrors(rows);
  }

  async listOpenPage(page: Page): Promise<Guest[]> {
    let q = this.db.selectFrom('guests').selectAll().where('status', '=', 'available').orderBy('id', 'desc');
    // By key: the primary key is read from the key on, never the rows before it (docs/architecture.md).
    const after = numericAfter(page);
    q = after === null ? q.offset(page.offset) : q.where('id', '<', after);
    return this.withErrors(await q.limit(page.limit).execute());
  }

  async listExpired(now: number): Promise<Guest[]> {
    const rows = await this.db
      .selectFrom('guests')
      .selectAll()
      .where('status', '=', 'available')
      .where('expires', 'is not', null)
      .where('expires', '<=', now)
      .orderBy('id')
      .execute();
    return this.withErrors(rows);
  }

  async close(id: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('guests')
      .set({ status: 'closed', closed: now })
      .where('id', '=', id)
      .where('status', '=', 'available')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async incrementTransferCount(id: number): Promise<void> {
    await this.db
      .updateTable('guests')
      .set((eb) => ({ transfer_count: eb('transfer_count', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  async countTransfersUsed(guestId: number): Promise<number> {
    const row = await this.db
      .selectFrom('transfers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('guest_id', '=', guestId)
      .where((eb) => eb.or([eb('status', '<>', 'closed'), eb('made_available', 'is not', null)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async touch(id: number, now: number): Promise<void> {
    await this.db.updateTable('guests').set({ last_activity: now }).where('id', '=', id).execute();
  }

  private async withErrors(rows: GuestRow[]): Promise<Guest[]> {
    if (!rows.length) return [];
    const byGuest = new Map<number, TrackingError[]>();
    for (const ids of slices(rows.map((r) => r.id))) {
      const errs = await this.db
        .selectFrom('tracking_errors')
        .select(['target_id', 'type', 'date', 'details'])
        .where('target_type', '=', 'Guest')
        .where('target_id', 'in', ids)
        .orderBy('id')
        .execute();
      for (const e of errs) {
        const list = byGuest.get(e.target_id) ?? [];
        list.push({ type: e.type, date: e.date, details: e.details });
        byGuest.set(e.target_id, list);
      }
    }
    return rows.map((r) => toGuest(r, byGuest.get(r.id) ?? []));
  }
}

function toGuest(r: GuestRow, errors: TrackingError[]): Guest {
  return {
    id: r.id,
    userId: r.user_id,
    userEmail: r.user_email,
    email: r.email,
    token: r.token,
    subject: r.subject,
    message: r.message,
    options: parseList(r.options),
    transferOptions: parseList(r.transfer_options),
    status: r.status as GuestStatus,
    transferCount: r.transfer_count,
    lang: r.lang,
    created: r.created,
    expires: r.expires,
    lastActivity: r.last_activity,
    closed: r.closed,
    errors,
  };
}

function parseList(json: string): string[] {
  const v = JSON.parse(json) as unknown;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
