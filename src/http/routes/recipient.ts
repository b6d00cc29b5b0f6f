import { Api } from '../api';
import { owner } from '../access';
import { Errors } from '../../domain/errors';
import type { Recipient, Transfer } from '../../domain/model';
import { presentRecipient } from '../presenters/transfer';
import { z } from 'zod';
import { actorOf } from '../actor';
import { flag, idParams, input } from '../input';
import { loadRecipient } from './loaders';
import type { FerryContext } from '../state';
import { requestLang } from '../request-lang';

type Loaded = { recipient: Recipient; transfer: Transfer };
const loaded = (ctx: FerryContext) => ctx.state.resource as Loaded;

/** A Recipient as the spec shows it, with its bounces and what became of its latest mail. */
export async function presentRecipientOf(ctx: FerryContext, r: Recipient) {
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

export const recipientUpdateInput = input({ params: idParams, body: z.strictObject({ remind: flag }) });

/** Recipient endpoints of the spec. */
export function recipientRoutes(api: Api): void {
  const own = owner(loadRecipient, { notFound: Errors.recipientNotFound });
  const idInput = input({ params: idParams });
  api.get('/recipient/:id', own, idInput, (ctx) => presentRecipientOf(ctx, loaded(ctx).recipient));
  api.put('/recipient/:id', own, recipientUpdateInput, async (ctx, { body: b }) => {
    const { recipient, transfer } = loaded(ctx);
    if (b.remind) await ctx.state.services.transfers.remind(actorOf(ctx), transfer, recipient);
    return presentRecipientOf(ctx, recipient);
  });
  api.delete('/recipient/:id', own, idInput, async (ctx) => {
    await ctx.state.services.recipients.remove(actorOf(ctx), loaded(ctx).recipient);
    return true;
  });
}
