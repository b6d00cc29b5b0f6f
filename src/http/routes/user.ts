import { Api } from '../api';
import { admin, users } from '../access';
import { ServiceError } from '../../domain/errors';
import { isLang, normaliseLang } from '../../i18n';
import { presentDate } from '../presenters/date';
import { bodyObject } from '../actor';
import type { FerryContext } from '../state';

/** The spec's user preferences object. */
function preferences(ctx: FerryContext, userId: string) {
  const s = ctx.state.services;
  const u = s.usersRepo.find(userId);
  if (!u) throw new ServiceError('user_not_found', 404);
  const cfg = s.settings.get();
  return {
    id: u.id,
    additional_attributes: JSON.parse(u.additional_attributes),
    aup_ticked: u.aup_ticked === 1,
    transfer_preferences: JSON.parse(u.transfer_preferences),
    guest_preferences: JSON.parse(u.guest_preferences),
    created: presentDate(u.created),
    last_activity: presentDate(u.last_activity),
    lang: u.lang ?? normaliseLang(cfg.default_lang) ?? 'en',
    frequent_recipients: s.transfers.frequentRecipients(u.id, null),
    remote_config: cfg.auth.remote_user_enabled ? `${cfg.base_url}/|${u.id}|${s.accounts.remoteSecret(u.id)}` : null,
    email: s.usersRepo.emails(u.id),
    is_admin: s.users.isAdmin(u.id),
  };
}

function self(ctx: FerryContext): string {
  const p = ctx.state.principal;
  if (p.type !== 'user') throw new ServiceError('rest_authentication_required', 401);
  return p.user.id;
}

/** PUT /user body: lang (validated), secret_rotate (remote-user secret). */
function update(ctx: FerryContext, userId: string): true {
  const s = ctx.state.services;
  if (!s.usersRepo.find(userId)) throw new ServiceError('user_not_found', 404);
  const b = bodyObject(ctx);
  const unknown = Object.keys(b).filter((k) => k !== 'lang' && k !== 'secret_rotate');
  if (unknown.length) throw new ServiceError('rest_bad_parameter', 400, unknown);
  if (b.lang !== undefined) {
    if (!isLang(b.lang)) throw new ServiceError('bad_lang_code', 400, ['lang']);
    s.usersRepo.setLang(userId, b.lang);
  }
  if (b.secret_rotate !== undefined) {
    if (typeof b.secret_rotate !== 'boolean') throw new ServiceError('rest_bad_parameter', 400, ['secret_rotate']);
    if (b.secret_rotate) s.accounts.remoteSecret(userId, true);
  }
  return true;
}

/** The user may act on itself; an admin on anyone. */
function selfOrAdmin(ctx: FerryContext): string {
  const p = ctx.state.principal;
  const id = ctx.params.id;
  if (p.type === 'user' && (p.user.id === id || p.isAdmin)) return id;
  throw new ServiceError('rest_admin_required', 403);
}

export function userRoutes(api: Api): void {
  api.get('/user', users(), (ctx) => preferences(ctx, self(ctx)));
  api.get('/user/@me', users(), (ctx) => preferences(ctx, self(ctx)));
  api.get('/user/:id', admin, (ctx) => preferences(ctx, ctx.params.id));
  api.put('/user', users(), (ctx) => update(ctx, self(ctx)));
  api.put('/user/@me', users(), (ctx) => update(ctx, self(ctx)));
  api.put('/user/:id', users(), (ctx) => update(ctx, selfOrAdmin(ctx)));
  api.get('/config', admin, (ctx) => ctx.state.services.settings.overrides());
  api.put('/config', admin, (ctx) => {
    const b = bodyObject(ctx);
    if (Object.keys(b).length === 0) throw new ServiceError('rest_missing_parameter', 400, ['body']);
    ctx.state.services.settings.update(b);
    return true;
  });
}
