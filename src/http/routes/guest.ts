import { Api, created } from '../api';
import { admin, owner, users } from '../access';
import { Errors } from '../../domain/errors';
import type { Guest } from '../../domain/model';
import { GuestCreator, parseGuestInput } from '../../domain/guest-input';
import { presentGuest } from '../presenters/guest';
import { requestLang } from '../request-lang';
import { pageOf, parsePage } from '../../domain/paging';
import type { FerryContext } from '../state';

async function loadGuest(ctx: FerryContext) {
  const raw = String(ctx.params.id);
  if (!/^\d{1,15}$/.test(raw)) throw Errors.restBadParameter('id');
  const guest = await ctx.state.services.guests.get(Number(raw));
  // guestId stays unset: a guest token never manages Guests, not even its own.
  return { resource: guest, ownerId: guest.userId };
}

const baseUrl = (ctx: FerryContext) => ctx.state.services.settings.get().base_url;
const present = async (ctx: FerryContext, g: Guest) => presentGuest(g, baseUrl(ctx), await requestLang(ctx));
/**
 * The whole list (newest first), or the page `?limit=N&offset=M` or `?limit=N&after=<id>` asks for
 * (docs/architecture.md, "Lists and pages").
 */
const presentAll = (ctx: FerryContext, list: Guest[]) =>
  Promise.all(pageOf(list, parsePage(ctx.query), (g) => g.id, true).map((g) => present(ctx, g)));

function creatorOf(ctx: FerryContext): GuestCreator {
  const p = ctx.state.principal;
  if (p.type !== 'user') throw Errors.restAccessForbidden();
  return { userId: p.user.id, emails: p.user.emails, fromMustBeOwn: p.via !== 'remote_application' }; // as in actorOf
}

/** The spec's Guest endpoints. */
export function guestRoutes(api: Api): void {
  const mine = async (ctx: FerryContext) => {
    const p = ctx.state.principal;
    return p.type === 'user' ? presentAll(ctx, await ctx.state.services.guests.listOf(p.user.id)) : [];
  };
  api.get('/guest', users(), mine);
  api.get('/guest/@me', users(), mine);
  api.get('/guest/@all', admin, async (ctx) => {
    const list = await ctx.state.services.guests.pageAll(parsePage(ctx.query));
    return Promise.all(list.map((g) => present(ctx, g)));
  });

  // Another user's Guest answers like an unknown id, so Guest ids cannot be probed.
  const own = owner(loadGuest, { notFound: Errors.guestNotFound });
  api.get('/guest/:id', own, (ctx) => present(ctx, ctx.state.resource as Guest));

  api.post('/guest', users(), async (ctx) => {
    const s = ctx.state.services;
    const creator = creatorOf(ctx);
    // The body is checked here, at the edge; the service takes the checked draft.
    const draft = parseGuestInput(ctx.request.body, creator, s.guestLimits(), s.clock());
    const guest = await s.guests.create(creator, draft, await requestLang(ctx));
    return created(ctx, await present(ctx, guest), `/guest/${guest.id}`);
  });

  api.put('/guest/:id', own, async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw Errors.restBadParameter('body');
    if (body.remind !== undefined && typeof body.remind !== 'boolean') throw Errors.restBadParameter('remind');
    if (body.remind) await ctx.state.services.guests.remind(ctx.state.resource as Guest);
    return true;
  });

  api.delete('/guest/:id', own, async (ctx) => {
    await ctx.state.services.guests.delete(ctx.state.resource as Guest);
    return true;
  });
}
