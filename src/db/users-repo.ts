import type { Page } from '../domain/paging';
import type { AccountOwner, UserRecord, UserRepository, UserSummary } from '../domain/ports';
import { affected, atomically, Db, firstRow, RepoContext, rows, runSql, selectSql, slices } from './context';

/** How long a user's stored e-mails are taken as known without reading them again (another process may change them). */
const SEEN_MS = 1000;
const SEEN_MAX = 10_000;

/** Users, their e-mail addresses and the admins table. */
export class UsersRepo implements UserRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  private find(id: string) {
    return firstRow(this.db, this.ctx, this.db.selectFrom('users').selectAll().where('id', '=', id));
  }

  async record(id: string): Promise<UserRecord | undefined> {
    const r = await this.find(id);
    if (!r) return undefined;
    return {
      id: r.id,
      lang: r.lang,
      aupTicked: r.aup_ticked === 1,
      transferPreferences: jsonOr(r.transfer_preferences, []),
      guestPreferences: jsonOr(r.guest_preferences, []),
      additionalAttributes: jsonOr(r.additional_attributes, {}),
      created: r.created,
      lastActivity: r.last_activity,
    };
  }

  async emails(id: string): Promise<string[]> {
    const found = await rows(
      this.db,
      this.ctx,
      this.db.selectFrom('user_emails').select('email').where('user_id', '=', id).orderBy('position'),
    );
    return found.map((r) => r.email);
  }

  /**
   * Creates the user on first sight; when emails are given they replace the stored list (the IdP is the
   * source). Returns the stored e-mails. Most requests change nothing: they are answered without a write, and
   * a user seen in the last second (on this node) without a read.
   */
  async upsertSeen(id: string, emails: string[], now: number): Promise<string[]> {
    const wall = Date.now();
    const seen = this.ctx.seenUsers;
    const hit = seen.get(id);
    if (
      hit &&
      wall - hit.at < SEEN_MS &&
      hit.lastActivity >= now - 60 &&
      (!emails.length || sameList(hit.emails, uniqueLower(emails)))
    ) {
      return hit.emails;
    }
    const stored = await this.refreshSeen(id, emails, now);
    keep(seen, id, { at: wall, lastActivity: now, emails: stored });
    return stored;
  }

  private async refreshSeen(id: string, emails: string[], now: number): Promise<string[]> {
    const row = await this.find(id);
    const stored = row ? await this.emails(id) : [];
    const wanted = uniqueLower(emails);
    // Activity is kept to the minute: a write on every request would serialise requests behind the write lock.
    const fresh = row !== undefined && (row.last_activity ?? 0) >= now - 60;
    const sameEmails = !emails.length || sameList(stored, wanted);
    if (fresh && sameEmails) return stored;
    return atomically(this.db, async (db) => {
      const repo = new UsersRepo(db, this.ctx);
      // Another node or process may create the same user at the same moment: the insert then does nothing.
      await db
        .insertInto('users')
        .values({ id, created: now, last_activity: now })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      await db
        .updateTable('users')
        .set({ last_activity: now })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_activity', 'is', null), eb('last_activity', '<', now - 60)]))
        .execute();
      if (emails.length) await repo.setEmails(id, emails);
      return repo.emails(id);
    });
  }

  async setEmails(id: string, emails: string[]): Promise<void> {
    this.ctx.seenUsers.delete(id);
    const unique = uniqueLower(emails);
    if (sameList(await this.emails(id), unique)) return;
    await atomically(this.db, async (db) => {
      await db.deleteFrom('user_emails').where('user_id', '=', id).execute();
      if (unique.length) {
        await db
          .insertInto('user_emails')
          .values(unique.map((email, position) => ({ user_id: id, email, position })))
          .onConflict((oc) => oc.columns(['user_id', 'email']).doNothing())
          .execute();
      }
    });
  }

  async listPage(page: Page | null): Promise<UserSummary[]> {
    let q = this.db.selectFrom('users').select('id').orderBy('id');
    if (page?.after) q = q.where('id', '>', page.after);
    if (page) q = q.limit(page.limit);
    if (page && !page.after) q = q.offset(page.offset);
    const users = await q.select(['provider', 'provider_admin']).execute();
    const ids = users.map((r) => r.id);
    const links = new Map<string, string[]>();
    const emails = new Map<string, string[]>();
    const local = new Set<string>();
    const admins = new Set<string>();
    for (const part of slices(ids)) {
      const found = await this.db
        .selectFrom('user_emails')
        .select(['user_id', 'email'])
        .where('user_id', 'in', part)
        .orderBy('user_id')
        .orderBy('position')
        .execute();
      for (const r of found) emails.set(r.user_id, [...(emails.get(r.user_id) ?? []), r.email]);
      const accounts = await this.db
        .selectFrom('local_accounts')
        .select('user_id')
        .where('user_id', 'in', part)
        .execute();
      for (const r of accounts) local.add(r.user_id);
      const named = await this.db.selectFrom('admins').select('user_id').where('user_id', 'in', part).execute();
      for (const r of named) admins.add(r.user_id);
      const linked = await this.db
        .selectFrom('user_links')
        .select(['user_id', 'provider'])
        .where('user_id', 'in', part)
        .orderBy('user_id')
        .orderBy('provider')
        .execute();
      for (const r of linked) links.set(r.user_id, [...(links.get(r.user_id) ?? []), r.provider]);
    }
    return users.map((u) => ({
      id: u.id,
      emails: emails.get(u.id) ?? [],
      local: local.has(u.id),
      dbAdmin: admins.has(u.id),
      provider: u.provider,
      providerAdmin: Number(u.provider_admin) === 1,
      links: links.get(u.id) ?? [],
    }));
  }

  async listIds(): Promise<string[]> {
    return (await this.db.selectFrom('users').select('id').orderBy('id').execute()).map((r) => r.id);
  }

  async setLang(id: string, lang: string | null): Promise<void> {
    this.ctx.langs.delete(id);
    await this.db.updateTable('users').set({ lang }).where('id', '=', id).execute();
  }

  /**
   * Read again at most once a second per node, as owner() below: every signed-in request reads it (the dates
   * and texts of its answer), and on PostgreSQL a read is a round trip, the only statement of a list page that
   * is not the list's (docs/architecture.md, "Lists and pages"). A change made on this node holds at once, one
   * made on another within the second.
   */
  async lang(id: string): Promise<string | null> {
    const wall = Date.now();
    const hit = this.db.isTransaction ? undefined : recent(this.ctx.langs, id, wall);
    if (hit) return hit.lang;
    const [r] = await selectSql<{ lang: string | null }>(this.db, this.ctx, 'SELECT lang FROM users WHERE id = ?', [
      id,
    ]);
    const lang = r?.lang ?? null;
    if (!this.db.isTransaction) keep(this.ctx.langs, id, { at: wall, lang });
    return lang;
  }

  async remoteSecret(id: string): Promise<string | null> {
    // Fixed SQL text: read for every request a user signs, each chunk of an upload.
    const [r] = await runSql<{ remote_secret: string | null }>(
      this.db,
      this.ctx,
      'SELECT remote_secret FROM users WHERE id = ?',
      [id],
    );
    return r?.remote_secret ?? null;
  }

  async setRemoteSecret(id: string, secret: string | null): Promise<void> {
    await this.db.updateTable('users').set({ remote_secret: secret }).where('id', '=', id).execute();
  }

  async isDbAdmin(id: string): Promise<boolean> {
    return (await selectSql(this.db, this.ctx, 'SELECT user_id FROM admins WHERE user_id = ?', [id])).length > 0;
  }

  async addAdmin(id: string, now: number): Promise<boolean> {
    const rows = await this.db
      .insertInto('admins')
      .values({ user_id: id, created: now })
      .onConflict((oc) => oc.column('user_id').doNothing())
      .returning('user_id')
      .execute();
    return rows.length > 0;
  }

  async setDisplayName(id: string, name: string | null): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ display_name: name })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('display_name', 'is', null), eb('display_name', '!=', name)]))
      .execute();
  }

  /**
   * Read again at most once a second per node (the header kind asks on every request, and on PostgreSQL a read is
   * a round trip): an account's provider is set once and never changes, and this repository's own writes forget
   * what it kept, and the sign-in rule reads again before it refuses (a link just made). An account with links
   * (rare) is read every time, so a link removed by another process (ferry user unlink) holds at once.
   */
  async owner(id: string, fresh = false): Promise<AccountOwner | undefined> {
    const wall = Date.now();
    const hit = this.db.isTransaction || fresh ? undefined : recent(this.ctx.owners, id, wall);
    if (hit) return hit.owner;
    const owner = await this.readOwner(id);
    if (owner && owner.links.length === 0 && !this.db.isTransaction) keep(this.ctx.owners, id, { at: wall, owner });
    return owner;
  }

  private async readOwner(id: string): Promise<AccountOwner | undefined> {
    // One fixed statement (links, rare, are read only when there are some).
    const [r] = await selectSql<{ provider: string | null; provider_admin: number; local: number; links: number }>(
      this.db,
      this.ctx,
      'SELECT provider, provider_admin, (SELECT COUNT(*) FROM local_accounts WHERE user_id = users.id) AS local, (SELECT COUNT(*) FROM user_links WHERE user_id = users.id) AS links FROM users WHERE id = ?',
      [id],
    );
    if (!r) return undefined;
    const links =
      Number(r.links) === 0
        ? []
        : await selectSql<{ provider: string }>(
            this.db,
            this.ctx,
            'SELECT provider FROM user_links WHERE user_id = ? ORDER BY provider',
            [id],
          );
    return {
      provider: r.provider,
      hasPassword: Number(r.local) > 0,
      links: links.map((l) => l.provider),
      providerAdmin: Number(r.provider_admin) === 1,
    };
  }

  async createFor(id: string, provider: string, now: number): Promise<void> {
    this.ctx.owners.delete(id);
    await this.db
      .insertInto('users')
      .values({ id, provider, created: now, last_activity: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  async adopt(id: string, provider: string): Promise<boolean> {
    this.ctx.owners.delete(id);
    const r = await this.db
      .updateTable('users')
      .set({ provider })
      .where('id', '=', id)
      .where('provider', 'is', null)
      .execute();
    return affected(r) > 0;
  }

  async setProviderAdmin(id: string, admin: boolean): Promise<void> {
    this.ctx.owners.delete(id);
    await this.db
      .updateTable('users')
      .set({ provider_admin: admin ? 1 : 0 })
      .where('id', '=', id)
      .where('provider_admin', '!=', admin ? 1 : 0)
      .execute();
  }

  async link(id: string, provider: string, now: number): Promise<boolean> {
    this.ctx.owners.delete(id);
    const rows = await this.db
      .insertInto('user_links')
      .values({ user_id: id, provider, created: now })
      .onConflict((oc) => oc.columns(['user_id', 'provider']).doNothing())
      .returning('user_id')
      .execute();
    return rows.length > 0;
  }

  async unlink(id: string, provider: string): Promise<boolean> {
    this.ctx.owners.delete(id);
    return (
      affected(
        await this.db.deleteFrom('user_links').where('user_id', '=', id).where('provider', '=', provider).execute(),
      ) > 0
    );
  }

  async removeAdmin(id: string): Promise<boolean> {
    return affected(await this.db.deleteFrom('admins').where('user_id', '=', id).execute()) > 0;
  }

  async listAdmins(): Promise<string[]> {
    return (await this.db.selectFrom('admins').select('user_id').orderBy('user_id').execute()).map((r) => r.user_id);
  }
}

function jsonOr<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function uniqueLower(emails: string[]): string[] {
  return [...new Set(emails.map((e) => e.toLowerCase()))];
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((e, i) => e === b[i]);
}

/** What this node read of `id` in the last second (SEEN_MS), if anything. */
function recent<E extends { at: number }>(kept: Map<string, E>, id: string, wall: number): E | undefined {
  const hit = kept.get(id);
  return hit && wall - hit.at < SEEN_MS ? hit : undefined;
}

/** Keeps what was read of `id`; the memory is emptied at SEEN_MAX entries rather than grow without bound. */
function keep<E>(kept: Map<string, E>, id: string, entry: E): void {
  if (kept.size >= SEEN_MAX) kept.clear();
  kept.set(id, entry);
}
