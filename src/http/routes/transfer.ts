import { Api, created } from '../api';
import { admin, owner, users } from '../access';
import { Errors } from '../../domain/errors';
import type { Transfer } from '../../domain/model';
import type { TransferView } from '../../domain/transfers';
import { presentAuditEntry, presentRecipient, presentTransfer } from '../presenters/transfer';
import { actorOf, bodyObject } from '../actor';
import { loadTransfer } from './loaders';
import { requestLang } from '../request-lang';
import type { FerryContext } from '../state';

const BEFORE_AVAILABLE = ['created', 'started', 'uploading'];

function present(ctx: FerryContext, v: TransferView | Transfer) {
  const s = ctx.state.services;
  const view = 'transfer' in v ? v : s.transfers.view(v);
  const withErrors = { ...view, recipients: view.recipients.map((r) => ({ ...r, errors: s.trackingErrors.forTarget('Recipient', r.id) })) };
  return presentTransfer(withErrors, s.settings.get().base_url, s.transfers.extensionsLeft(view.transfer));
}

const transferOf = (ctx: FerryContext) => ctx.state.resource as Transfer;

/** Transfer endpoints of the spec. */
export function transferRoutes(api: Api): void {
  const list = (ctx: FerryContext) => ctx.state.services.transfers.listFor(actorOf(ctx)).map((t) => present(ctx, t));
  api.get('/transfer', users({ guests: true }), list);
  api.get('/transfer/@me', users({ guests: true }), list);
  api.get('/transfer/@all', admin, (ctx) => ctx.state.services.transfers.listAll().map((t) => present(ctx, t)));

  api.post('/transfer', users({ guests: true }), (ctx) => {
    const view = ctx.state.services.transfers.create(actorOf(ctx), ctx.request.body, requestLang(ctx));
    return created(ctx, present(ctx, view), `/transfer/${view.transfer.id}`);
  });

  const own = owner(loadTransfer, { notFound: Errors.transferNotFound });
  api.get('/transfer/:id', own, (ctx) => present(ctx, transferOf(ctx)));
  api.get('/transfer/:id/options', own, (ctx) => transferOf(ctx).options);
  api.get('/transfer/:id/auditlog', own, (ctx) => {
    if (!ctx.state.services.settings.get().auditlog_enabled) return [];
    return ctx.state.services.transfers.auditLog(transferOf(ctx)).map(presentAuditEntry);
  });
  api.get('/transfer/:id/auditlog/mail', own, (ctx) => {
    ctx.state.services.transfers.mailAuditLog(actorOf(ctx), transferOf(ctx), requestLang(ctx));
    return true;
  });

  api.post('/transfer/:id/recipient', own, (ctx) => {
    const r = ctx.state.services.recipients.add(actorOf(ctx), transferOf(ctx), ctx.request.body);
    return created(ctx, presentRecipient(r, ctx.state.services.settings.get().base_url), `/recipient/${r.id}`);
  });

  // The chunk-upload key may only complete a Transfer (spec: PUT /transfer access).
  const ownOrKeyForComplete = owner(loadTransfer, {
    notFound: Errors.transferNotFound,
    chunkKey: (ctx) => {
      const b = bodyObject(ctx as FerryContext);
      return b.complete === true && Object.keys(b).every((k) => k === 'complete');
    },
  });
  api.put('/transfer/:id', ownOrKeyForComplete, async (ctx) => {
    const s = ctx.state.services.transfers;
    const b = bodyObject(ctx);
    const known = ['complete', 'closed', 'extend_expiry_date', 'remind'];
    const unknown = Object.keys(b).filter((k) => !known.includes(k));
    if (unknown.length) throw Errors.restBadParameter(...unknown);
    for (const k of known) if (b[k] !== undefined && typeof b[k] !== 'boolean') throw Errors.restBadParameter(k);
    const actor = actorOf(ctx);
    let t = transferOf(ctx);
    if (b.complete) t = s.complete(actor, t);
    if (b.extend_expiry_date) t = s.extend(actor, t);
    if (b.remind) s.remind(actor, t);
    if (b.closed) t = await s.close(actor, t, 'owner');
    return present(ctx, t);
  });

  // The chunk-upload key may delete a Transfer only before it is available (spec: States, rule 2).
  const ownOrKeyBeforeAvailable = owner(loadTransfer, {
    notFound: Errors.transferNotFound,
    chunkKey: (_ctx, owned) => BEFORE_AVAILABLE.includes((owned.resource as Transfer).status),
  });
  api.delete('/transfer/:id', ownOrKeyBeforeAvailable, async (ctx) => {
    await ctx.state.services.transfers.close(actorOf(ctx), transferOf(ctx), 'deleted');
    return true;
  });
}
