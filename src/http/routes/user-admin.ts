import { Api, created } from '../api';
import { admin, users } from '../access';
import { Errors } from '../../domain/errors';
import { bodyObject } from '../actor';
import { parsePage } from '../../domain/paging';
import type { FerryContext } from '../state';
import { SESSION_COOKIE } from '../../auth/sessions';
import { requestClientAddress } from '../client-address';

/** The signed-in user's id (the access level has checked there is one). */
function actorId(ctx: FerryContext): string {
  const p = ctx.state.principal;
  if (p.type !== 'user') throw Errors.restAuthenticationRequired();
  return p.user.id;
}

/** Who acts on an account: the user's id, or null for an admin application acting as itself (no account of its own). */
function adminActor(ctx: FerryContext): string | null {
  const p = ctx.state.principal;
  return p.type === 'user' ? p.user.id : null;
}

function onlyKeys(b: Record<string, unknown>, allowed: string[]): void {
  const unknown = Object.keys(b).filter((k) => !allowed.includes(k));
  if (unknown.length) throw Errors.restBadParameter(...unknown);
}

/** A quota in the body: bytes (0 = no limit), or null for the config's user_quota. */
function quotaValue(v: unknown): number | null {
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw Errors.restBadParameter('quota');
  return v;
}

/** `email` in a body: one address, several separated by commas, or a list. */
function emailsOf(b: Record<string, unknown>): string[] {
  onlyKeys(b, ['email']);
  if (b.email === undefined) throw Errors.restMissingParameter('email');
  const emails =
    typeof b.email === 'string'
      ? b.email
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean)
      : b.email;
  if (!Array.isArray(emails) || !emails.every((e) => typeof e === 'string')) throw Errors.badEmail('email');
  return emails as string[];
}

/**
 * Account management from the web (ferry's extension of the spec's User endpoints): what `ferry user …` and
 * `ferry admin …` do, through the same services, for admins; and one's own password and quota for every
 * user. Registered before /user/:id so that @all and @me are not taken for ids.
 */
export function userAdminRoutes(api: Api): void {
  api.get('/user/@all', admin, async (ctx) => {
    const s = ctx.state.services;
    const configAdmins = s.settings.get().admin;
    // The whole list, or the page `?limit=N&offset=M` or `?limit=N&after=<user id>` asks for, in the order of
    // the ids (docs/architecture.md, "Lists and pages"), read from the database a page at a time.
    const list = await s.accounts.listUsers(parsePage(ctx.query));
    const quotaOf = await s.usage.perUser(list.map((u) => u.id));
    return list.map((u) => {
      const q = quotaOf(u.id);
      return {
        id: u.id,
        emails: u.emails,
        local: u.local,
        admin: u.admin,
        admin_by_config: configAdmins.includes(u.id),
        // Through the identity provider's admin_groups / admin_values, as it said at the last sign-in.
        admin_by_provider: u.adminByProvider,
        provider: u.provider,
        quota: q.limit,
        quota_own: q.own,
        used: q.used,
      };
    });
  });

  // Body: id, email (one address or a list), admin (optional boolean). Answers the first password, once.
  api.post('/user', admin, async (ctx) => {
    const b = bodyObject(ctx);
    onlyKeys(b, ['id', 'email', 'admin']);
    if (typeof b.id !== 'string' || !b.id) throw Errors.restMissingParameter('id');
    const emails =
      typeof b.email === 'string'
        ? b.email
            .split(',')
            .map((e) => e.trim())
            .filter(Boolean)
        : b.email;
    if (!Array.isArray(emails) || !emails.every((e) => typeof e === 'string')) throw Errors.badEmail('email');
    if (b.admin !== undefined && typeof b.admin !== 'boolean') throw Errors.restBadParameter('admin');
    const password = await ctx.state.services.accounts.createLocalUser(b.id, emails as string[], b.admin === true);
    return created(ctx, { id: b.id, password }, `/user/${encodeURIComponent(b.id)}`);
  });

  api.delete('/user/:id', admin, async (ctx) => {
    await ctx.state.services.accounts.removeUserBy(adminActor(ctx), String(ctx.params.id));
    return true;
  });

  // A new random password, answered once: only its hash is stored, and no log line carries it.
  api.post('/user/:id/password', admin, async (ctx) => {
    const id = String(ctx.params.id);
    if (!(await ctx.state.services.accounts.isLocal(id))) throw Errors.userNotFound();
    return { id, password: await ctx.state.services.accounts.resetPassword(id) };
  });

  api.put('/user/:id/admin', admin, async (ctx) => {
    const b = bodyObject(ctx);
    onlyKeys(b, ['admin']);
    if (typeof b.admin !== 'boolean') throw Errors.restBadParameter('admin');
    await ctx.state.services.accounts.setAdminBy(adminActor(ctx), String(ctx.params.id), b.admin);
    return true;
  });

  api.put('/user/:id/quota', admin, async (ctx) => {
    const b = bodyObject(ctx);
    onlyKeys(b, ['quota']);
    if (!('quota' in b)) throw Errors.restMissingParameter('quota');
    await ctx.state.services.usage.setQuota(String(ctx.params.id), quotaValue(b.quota));
    return true;
  });

  // Body: email (one address or a list). A local account's addresses: its own owner's (below) or an admin's.
  // @me first: /user/:id/email would take "@me" for an id.
  api.put('/user/@me/email', users(), async (ctx) => {
    await ctx.state.services.accounts.setEmails(actorId(ctx), emailsOf(bodyObject(ctx)));
    return true;
  });
  api.put('/user/:id/email', admin, async (ctx) => {
    await ctx.state.services.accounts.setEmails(String(ctx.params.id), emailsOf(bodyObject(ctx)));
    return true;
  });

  // One's own quota and what counts against it (the upload page and the profile show it).
  api.get('/user/@me/quota', users(), async (ctx) => {
    const q = await ctx.state.services.usage.quotaOf(actorId(ctx));
    return { quota: q.limit, used: q.used, own: q.own };
  });

  // Body: current_password, password. Local accounts only, signed in with their session (not a signed request).
  api.put('/user/@me/password', users(), async (ctx) => {
    const s = ctx.state.services;
    const p = ctx.state.principal;
    if (p.type !== 'user' || p.via !== 'sp' || !p.provider || !s.identity.get(p.provider)?.localAccounts)
      throw Errors.restAccessForbidden();
    const b = bodyObject(ctx);
    onlyKeys(b, ['current_password', 'password']);
    if (typeof b.current_password !== 'string' || !b.current_password)
      throw Errors.restMissingParameter('current_password');
    if (typeof b.password !== 'string' || !b.password) throw Errors.restMissingParameter('password');
    if (b.current_password.length > 1024) throw Errors.restBadParameter('current_password');
    const ip = requestClientAddress(ctx);
    await s.accounts.changeOwnPassword(p.user.id, b.current_password, b.password, ctx.cookies.get(SESSION_COOKIE), ip);
    return true;
  });

  api.get('/storage', admin, async (ctx) => {
    const st = await ctx.state.services.usage.storage();
    return { used: st.used, free: st.free, total: st.total, host_quota: st.hostQuota, host_used: st.hostUsed };
  });

  // The overview's figures, so the page never loads a whole list to count it.
  api.get('/usage/counts', admin, async (ctx) => {
    const c = await ctx.state.services.usage.counts();
    return {
      transfers: c.transfers,
      live_transfers: c.liveTransfers,
      held_transfers: c.held,
      guests: c.guests,
      users: c.users,
      local_users: c.localUsers,
    };
  });

  api.get('/usage', admin, async (ctx) => {
    const o = await ctx.state.services.usage.overview();
    return {
      days: o.days,
      top_senders: o.topSenders.map((t) => ({ user_id: t.userId, transfers: t.transfers, bytes: t.bytes })),
      storage: o.storage,
    };
  });
}
