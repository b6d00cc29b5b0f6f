import { Api, Reply } from '../api';
import { isEmail } from '../../domain/transfer-input';
import { AccessLevel, admin, owner, Owned, users } from '../access';
import { Errors } from '../../domain/errors';
import type { UserRecord } from '../../domain/users';
import { isLang, normaliseLang } from '../../i18n';
import { presentUser } from '../presenters/user';
import { z } from 'zod';
import { failsAs, flag, input, parseParams, userIdParams, wrongIs } from '../input';
import type { FerryContext } from '../state';
import { requestLang } from '../request-lang';
import { userAdminRoutes } from './user-admin';

/** The authenticated user's id; `users()` has already made sure the principal is a user. */
async function me(ctx: FerryContext): Promise<UserRecord> {
  const p = ctx.state.principal;
  if (p.type !== 'user') throw Errors.restAuthenticationRequired();
  return ctx.state.services.users.get(p.user.id);
}

/**
 * The access level "the user itself, admin" of the spec's /user/{id} endpoints, for the path parameter `param`:
 * the owner level over the user record, so another user's id answers like an unknown one (404 user_not_found).
 * The checked UserRecord is left on ctx.state.resource.
 */
export function userSelfOrAdmin(): AccessLevel {
  return owner(
    async (ctx): Promise<Owned<UserRecord>> => {
      const u = await ctx.state.services.users.get(parseParams(ctx, userIdParams).id);
      return { resource: u, ownerId: u.id };
    },
    { notFound: Errors.userNotFound },
  );
}

async function preferences(ctx: FerryContext, u: UserRecord) {
  const s = ctx.state.services;
  const cfg = s.settings.get();
  const p = ctx.state.principal;
  // The secret lets its holder act as the user, so only the user itself sees it: an admin reading another
  // user's preferences (GET /user/{id}) gets null, and no secret is made for a user who never asked for one.
  // Nor does a remote application acting as the user: removing or rotating the application must end its
  // power over the user's account, which a copy of the user's own secret would outlive.
  const self = p.type === 'user' && p.user.id === u.id && p.via !== 'remote_application';
  return presentUser(u, {
    emails: await s.users.emails(u.id),
    frequentRecipients: await s.transfers.frequentRecipients(u.id, null),
    // The secret is created the first time it is needed (spec: remote_config).
    remoteConfig:
      cfg.auth.remote_user_enabled && self ? `${cfg.base_url}/|${u.id}|${await s.users.remoteSecret(u.id)}` : null,
    // The user's own rights on this request include those their identity provider gave the session
    // (admin_groups, admin_values); another user's, as the database and the config say.
    isAdmin: (self && p.type === 'user' && p.isAdmin) || (await s.users.isAdmin(u.id)),
    defaultLang: normaliseLang(cfg.default_lang) ?? 'en',
    lang: await requestLang(ctx),
  });
}

/** PUT /user body: lang (one of the shipped languages), secret_rotate (a new remote-user secret). */
const updateBody = z.strictObject({
  lang: z
    .string({ error: wrongIs(Errors.badLangCode) })
    .refine(isLang, failsAs(Errors.badLangCode))
    .optional(),
  secret_rotate: flag,
});

export const userUpdateInput = input({ body: updateBody });
export const userUpdateByIdInput = input({ params: userIdParams, body: updateBody });

async function update(ctx: FerryContext, u: UserRecord, b: z.output<typeof updateBody>): Promise<true> {
  const s = ctx.state.services;
  if (b.lang !== undefined) await s.users.setLang(u.id, b.lang);
  if (b.secret_rotate === true) await s.users.remoteSecret(u.id, true);
  return true;
}

/**
 * FileSender's filesender.py.ini for the signed-in user: its command-line client reads the REST address, the
 * user name it signs as and the secret from it. Like remote_config, only for the user itself (not an admin,
 * not a remote application acting as the user), and it creates the secret the first time.
 */
async function filesenderIni(ctx: FerryContext): Promise<Reply> {
  const s = ctx.state.services;
  const cfg = s.settings.get();
  const p = ctx.state.principal;
  if (p.type !== 'user' || p.via === 'remote_application') throw Errors.restAccessForbidden();
  if (!cfg.auth.remote_user_enabled) throw Errors.restAccessForbidden('remote_user_enabled');
  const u = await me(ctx);
  const firstEmail = (await s.users.emails(u.id))[0] ?? 'you@example.org';
  const secret = await s.users.remoteSecret(u.id);
  // One line per value, read back as written: Python's configparser strips blanks at either end and would
  // take a line break for a new key, so such a user id cannot be written (none of ferry's sign-ins make one).
  if (/[\u0000-\u001f\u007f]/.test(u.id) || u.id.trim() !== u.id) throw Errors.restBadParameter('id');
  // configparser reads "%" as the start of an interpolation: written "%%".
  const value = (v: string) => v.replace(/%/g, '%%');
  const lines = [
    '# FileSender command-line client (filesender.py) settings for ferry: save as ~/.filesender/filesender.py.ini',
    '# This file contains your API secret: keep it private.',
    ...(isEmail(u.id)
      ? []
      : [`# Your user name is not an e-mail address: give yours with -f (e.g. -f ${firstEmail}).`]),
    '[system]',
    `base_url = ${value(`${cfg.base_url}/rest.php`)}`,
    // The client dates its guests' invitations with this too, so it stays within what a guest may be given.
    `default_transfer_days_valid = ${Math.min(cfg.default_transfer_days_valid, cfg.max_guest_days_valid)}`,
    '',
    '[user]',
    `username = ${value(u.id)}`,
    `apikey = ${value(secret)}`,
    '',
  ];
  return new Reply(lines.join('\n'), 200, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Disposition': 'attachment; filename="filesender.py.ini"',
  });
}

/** The spec's User endpoints (frequent recipients live with the recipients' routes). */
export function userRoutes(api: Api): void {
  userAdminRoutes(api);
  api.get('/user/@me/filesender-python-client-configuration-file', users(), filesenderIni);
  api.get('/user', users(), async (ctx) => preferences(ctx, await me(ctx)));
  api.get('/user/@me', users(), async (ctx) => preferences(ctx, await me(ctx)));
  api.get('/user/:id', admin, input({ params: userIdParams }), async (ctx, { params }) =>
    preferences(ctx, await ctx.state.services.users.get(params.id)),
  );
  api.put('/user', users(), userUpdateInput, async (ctx, { body }) => update(ctx, await me(ctx), body));
  api.put('/user/@me', users(), userUpdateInput, async (ctx, { body }) => update(ctx, await me(ctx), body));
  api.put('/user/:id', userSelfOrAdmin(), userUpdateByIdInput, (ctx, { body }) =>
    update(ctx, ctx.state.resource as UserRecord, body),
  );
}
