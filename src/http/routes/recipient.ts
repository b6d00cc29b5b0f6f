import { Api } from '../api';
import { owner, users } from '../access';
import { ServiceError } from '../../domain/errors';
import type { Recipient, Transfer } from '../../domain/model';
import { presentRecipient } from '../presenters/transfer';
import { actorOf, bodyObject } from '../actor';
import { loadRecipient } from './loaders';
import type { FerryContext } from '../state';

type Loaded = { recipient: Recipient; transfer: Transfer };
const loaded = (ctx: FerryContext) => ctx.state.resource as Loaded;

function present(ctx: FerryContext, r: Recipient) {
  const s = ctx.state.services;
  return presentRecipient({ ...r, errors: s.trackingErrors.forTarget('Recipient', r.id) }, s.settings.get().base_url);
}

/** Recipient endpoints of the spec, and the frequent recipients of a user. */
export function recipientRoutes(api: Api): void {
  const own = owner(loadRecipient, { notFound: 'recipient_not_found' });
  api.get('/recipient/:id', own, (ctx) => present(ctx, loaded(ctx).recipient));
  api.put('/recipient/:id', own, (ctx) => {
    const b = bodyObject(ctx);
    if (b.remind !== undefined && typeof b.remind !== 'boolean') throw new ServiceError('rest_bad_parameter', 400, ['remind']);
    const { recipient, transfer } = loaded(ctx);
    if (b.remind) ctx.state.services.transfers.remind(actorOf(ctx), transfer, recipient);
    return present(ctx, recipient);
  });
  api.delete('/recipient/:id', own, async (ctx) => {
    await ctx.state.services.recipients.remove(actorOf(ctx), loaded(ctx).recipient);
    return true;
  });

  const contains = (ctx: FerryContext): string | null => {
    const v = ctx.query['filterOp[contains]'] ?? (ctx.query.filterOp as unknown as Record<string, string> | undefined)?.contains;
    if (v === undefined) return null;
    if (typeof v !== 'string' || v.length > 254) throw new ServiceError('rest_bad_parameter', 400, ['filterOp[contains]']);
    return v;
  };
  api.get('/user/@me/frequent_recipients', users(), (ctx) => {
    const p = ctx.state.principal;
    return p.type === 'user' ? ctx.state.services.transfers.frequentRecipients(p.user.id, contains(ctx)) : [];
  });
  api.get('/user/:uid/frequent_recipients', users(), (ctx) => {
    const p = ctx.state.principal;
    const uid = ctx.params.uid;
    if (p.type !== 'user' || (p.user.id !== uid && !p.isAdmin)) throw new ServiceError('rest_ownership_required', 403);
    return ctx.state.services.transfers.frequentRecipients(uid, contains(ctx));
  });
}
