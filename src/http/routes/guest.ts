import { Api, created } from '../api';
import { admin, owner, users } from '../access';
import { Errors } from '../../domain/errors';
import type { Guest } from '../../domain/model';
import type { GuestCreator } from '../../domain/guest-input';
import { presentGuest } from '../presenters/guest';
import { requestLang } from '../request-lang';
import type { FerryContext } from '../state';

function loadGuest(ctx: FerryContext) {
  const raw = String(ctx.params.id);
  if (!/^\d{1,15}$/.test(raw)) throw Errors.restBadParameter('id');
  const guest = ctx.state.services.guests.get(Number(raw));
  // guestId stays unset: a guest token never manages Guests, not even its own.
  return { resource: guest, ownerId: guest.userId };
}

const baseUrl = (ctx: FerryContext) => ctx.state.services.settings.get().base_url;
const present = (ctx: FerryContext, g: Guest) => presentGuest(g, baseUrl(ctx));

function creatorOf(ctx: FerryContext): GuestCreator {
  const p = ctx.state.principal;
  if (p.type !== 'user') throw Errors.restAccessForbidden();
  return { userId: p.user.id, emails: p.user.emails, fromMustBeOwn: p.via === 'sp' };
}

/** The spec's Guest endpoints. */
export function guestRoutes(api: Api): void {
  const mine = (ctx: FerryContext) => {
    const p = ctx.state.principal;
    return p.type === 'user' ? ctx.state.services.guests.listOf(p.user.id).map((g) => present(ctx, g)) : [];
  };
  api.get('/guest', users(), mine);
  api.get('/guest/@me', users(), mine);
  api.get('/guest/@all', admin, (ctx) => ctx.state.services.guests.listAll().map((g) => present(ctx, g)));

  // Another user's Guest answers like an unknown id, so Guest ids cannot be probed.
  const own = owner(loadGuest, { notFound: Errors.guestNotFound });
  api.get('/guest/:id', own, (ctx) => present(ctx, ctx.state.resource as Guest));

  api.post('/guest', users(), (ctx) => {
    const guest = ctx.state.services.guests.create(creatorOf(ctx), ctx.request.body, requestLang(ctx));
    return created(ctx, present(ctx, guest), `/guest/${guest.id}`);
  });

  api.put('/guest/:id', own, (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw Errors.restBadParameter('body');
    if (body.remind !== undefined && typeof body.remind !== 'boolean') throw Errors.restBadParameter('remind');
    if (body.remind) ctx.state.services.guests.remind(ctx.state.resource as Guest);
    return true;
  });

  api.delete('/guest/:id', own, (ctx) => {
    ctx.state.services.guests.delete(ctx.state.resource as Guest);
    return true;
  });
}
