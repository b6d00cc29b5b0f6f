import { Api } from '../api';
import { owner } from '../access';
import { Errors } from '../../domain/errors';
import type { Recipient, Transfer } from '../../domain/model';
import { presentRecipient } from '../presenters/transfer';
import { actorOf, bodyObject } from '../actor';
import { loadRecipient } from './loaders';
import type { FerryContext } from '../state';
import { requestLang } from '../request-lang';

type Loaded = { recipient: Recipient; transfer: Transfer };
const loaded = (ctx: FerryContext) => ctx.state.resource as Loaded;

async function present(ctx: FerryContext, r: Recipient) {
  const s = ctx.state.services;
  const status = await s.recipients.deliveryStatus([r.id]);
  const delivery = status.delivery.get(r.id);
  return presentRecipient(
    { ...r, errors: status.errors.get(r.id) ?? [] },
    s.settings.get().base_url,
    await requestLang(ctx),
    delivery,
    s.mailInbox !== null,
  );
}

/** Recipient endpoints of the spec. */
export function recipientRoutes(api: Api): void {
  const own = owner(loadRecipient, { notFound: Errors.recipientNotFound });
  api.get('/recipient/:id', own, (ctx) => present(ctx, loaded(ctx).recipient));
  api.put('/recipient/:id', own, async (ctx) => {
    const b = bodyObject(ctx);
    const unknown = Object.keys(b).filter((k) => k !== 'remind');
    if (unknown.length) throw Errors.restBadParameter(...unknown);
    if (b.remind !== undefined && typeof b.remind !== 'boolean') throw Errors.restBadParameter('remind');
    const { recipient, transfer } = loaded(ctx);
    if (b.remind) await ctx.state.services.transfers.remind(actorOf(ctx), transfer, recipient);
    return present(ctx, recipient);
  });
  api.delete('/recipient/:id', own, async (ctx) => {
    await ctx.state.services.recipients.remove(actorOf(ctx), loaded(ctx).recipient);
    return true;
  });
}
