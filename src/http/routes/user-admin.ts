import { Api, created } from '../api';
import { admin, users } from '../access';
import { Errors } from '../../domain/errors';
import { z } from 'zod';
import { failsAs, input, pageQuery, userIdParams, wrongIs } from '../input';
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

/** A quota in the body: bytes (0 = no limit), or null for the config's user_quota. */
const quota = z.int().min(0).nullable();

/** `email` in a body: one address, several separated by commas, or a list (the accounts service checks each). */
const emailList = (error: z.core.$ZodErrorMap | string) =>
  z.union(
    [
      z.string().transform((v) =>
        v
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean),
      ),
      z.array(z.string()),
    ],
    { error },
  );
const emailsInput = z.strictObject({ email: emailList(wrongIs(Errors.badEmail)) });
const userIdInput = input({ params: userIdParams });

// The inputs the web pages send (their types: src/http/presenters/wire.ts).
/** Body: id, email (one address or a list), admin (optional boolean). */
export const newUserInput = input({
  body: z.strictObject({
    id: z.string(failsAs(Errors.restMissingParameter)).min(1, failsAs(Errors.restMissingParameter)),
    email: emailList(Errors.badEmail.id),
    admin: z.boolean().optional(),
  }),
});
/** A new random password: its body, if any, says nothing. */
export const resetPasswordInput = input({ params: userIdParams, body: z.object({}) });
export const adminFlagInput = input({
  params: userIdParams,
  body: z.strictObject({ admin: z.boolean(failsAs(Errors.restBadParameter)) }),
});
export const quotaInput = input({ params: userIdParams, body: z.strictObject({ quota }) });
export const ownEmailsInput = input({ body: emailsInput });
export const userEmailsInput = input({ params: userIdParams, body: emailsInput });
const given = z.string(failsAs(Errors.restMissingParameter)).min(1, failsAs(Errors.restMissingParameter));
/** Body: current_password, password. */
export const ownPasswordInput = input({
  body: z.strictObject({ current_password: given.max(1024, failsAs(Errors.restBadParameter)), password: given }),
});

/**
 * Account management from the web (ferry's extension of the spec's User endpoints): what `ferry user …` and
 * `ferry admin …` do, through the same services, for admins; and one's own password and quota for every
 * user. Registered before /user/:id so that @all and @me are not taken for ids.
 */
export function userAdminRoutes(api: Api): void {
  api.get('/user/@all', admin, input({ query: pageQuery }), async (ctx, { query }) => {
    const s = ctx.state.services;
    const configAdmins = s.settings.get().admin;
    // The whole list, or the page `?limit=N&offset=M` or `?limit=N&after=<user id>` asks for, in the order of
    // the ids (docs/architecture.md, "Lists and pages"), read from the database a page at a time.
    const list = await s.accounts.listUsers(parsePage(query));
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

  // Answers the first password, once.
  api.post('/user', admin, newUserInput, async (ctx, { body: b }) => {
    const password = await ctx.state.services.accounts.createLocalUser(b.id, b.email, b.admin === true);
    return created(ctx, { id: b.id, password }, `/user/${encodeURIComponent(b.id)}`);
  });

  api.delete('/user/:id', admin, userIdInput, async (ctx, { params }) => {
    await ctx.state.services.accounts.removeUserBy(adminActor(ctx), params.id);
    return true;
  });

  // A new random password, answered once: only its hash is stored, and no log line carries it.
  api.post('/user/:id/password', admin, resetPasswordInput, async (ctx, { params }) => {
    const id = params.id;
    if (!(await ctx.state.services.accounts.isLocal(id))) throw Errors.userNotFound();
    return { id, password: await ctx.state.services.accounts.resetPassword(id) };
  });

  api.put('/user/:id/admin', admin, adminFlagInput, async (ctx, { params, body }) => {
    await ctx.state.services.accounts.setAdminBy(adminActor(ctx), params.id, body.admin);
    return true;
  });

  api.put('/user/:id/quota', admin, quotaInput, async (ctx, { params, body }) => {
    await ctx.state.services.usage.setQuota(params.id, body.quota);
    return true;
  });

  // Body: email (one address or a list). A local account's addresses: its own owner's (below) or an admin's.
  // @me first: /user/:id/email would take "@me" for an id.
  api.put('/user/@me/email', users(), ownEmailsInput, async (ctx, { body }) => {
    await ctx.state.services.accounts.setEmails(actorId(ctx), body.email);
    return true;
  });
  api.put('/user/:id/email', admin, userEmailsInput, async (ctx, { params, body }) => {
    await ctx.state.services.accounts.setEmails(params.id, body.email);
    return true;
  });

  // One's own quota and what counts against it (the upload page and the profile show it).
  api.get('/user/@me/quota', users(), async (ctx) => {
    const q = await ctx.state.services.usage.quotaOf(actorId(ctx));
    return { quota: q.limit, used: q.used, own: q.own };
  });

  // Local accounts only, signed in with their session (not a signed request).
  api.put('/user/@me/password', users(), ownPasswordInput, async (ctx, { body: b }) => {
    const s = ctx.state.services;
    const p = ctx.state.principal;
    if (p.type !== 'user' || p.via !== 'sp' || !p.provider || !s.identity.get(p.provider)?.localAccounts)
      throw Errors.restAccessForbidden();
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
