import { Api, created } from '../api';
import { linkUnlock } from '../download/link-unlock';
import { admin, owner, publicAccess, users } from '../access';
import { safeEntryNames } from '../../archive/layout';
import { Errors } from '../../domain/errors';
import type { Transfer } from '../../domain/model';
import { senderFieldsIgnored, TransferView } from '../../domain/transfers';
import { z } from 'zod';
import { isEmail, parseTransferInput } from '../../domain/transfer-input';
import { parsePage } from '../../domain/paging';
import { parseEncryption } from '../../domain/encryption-input';
import { presentAuditEntry, presentFileExtended, presentTransfer } from '../presenters/transfer';
import { presentSharing, presentVirusScan } from '../presenters/sharing';
import type { TransferJson } from '../presenters/wire';
import type { TransferReadouts } from '../../domain/transfer-views';
import { parseSharingInput } from '../../domain/sharing';
import { hashLinkPassword } from '../../domain/link-password';
import { actorOf } from '../actor';
import { anyObject, bodyFits, failsAs, flag, idParams, input, pageQuery, tokenQuery, wrongIs } from '../input';
import { loadTransfer } from './loaders';
import { presentRecipientOf } from './recipient';
import { requestLang } from '../request-lang';
import type { FerryContext } from '../state';
import { actingGet } from '../middleware/authenticate';

const BEFORE_AVAILABLE = ['created', 'started', 'uploading'];

async function present(ctx: FerryContext, v: TransferView | Transfer, creating = false) {
  const [read, lang] = await Promise.all([ctx.state.services.transferViews.one(v), requestLang(ctx)]);
  return presentReadouts(ctx, read, lang, creating)[0];
}

/** Transfers as the read model gives them (src/domain/transfer-views.ts), in the spec's JSON. */
function presentReadouts(ctx: FerryContext, read: TransferReadouts, lang: string, creating = false): TransferJson[] {
  const s = ctx.state.services;
  const baseUrl = s.settings.get().base_url;
  return read.transfers.map(({ view, extensionsLeft, sharing, scan }) => {
    const shown = presentTransfer(view, baseUrl, lang, extensionsLeft, creating, read.delivery, s.mailInbox !== null);
    const scanned = presentVirusScan(view.transfer, scan, read.scanning);
    return sharing ? { ...shown, ...presentSharing(sharing), ...scanned } : { ...shown, ...scanned };
  });
}

/**
 * A list of Transfers: the whole list (FileSender's answer), or the page `?limit=N&offset=M` asks for; views
 * built in batches (docs/architecture.md, "Lists and pages").
 */
async function presentList(ctx: FerryContext, read: Promise<TransferReadouts>) {
  const [views, lang] = await Promise.all([read, requestLang(ctx)]);
  return presentReadouts(ctx, views, lang);
}

const transferOf = (ctx: FerryContext) => ctx.state.resource as Transfer;

const listInput = input({ query: pageQuery });
/** POST /transfer: an object; its fields are the domain's to check (parseTransferInput, parseSharingInput). */
export const createInput = input({ body: anyObject });
const idInput = input({ params: idParams });
export const recipientInput = input({
  params: idParams,
  body: z.object({
    recipient: z.string({ error: wrongIs(Errors.badEmail) }).refine(isEmail, failsAs(Errors.badEmail)),
  }),
});
/** PUT /transfer/{id}; download_limit is ferry's extension (docs/sharing.md), checked by the sharing service. */
export const updateInput = input({
  params: idParams,
  body: z.strictObject({
    complete: flag,
    closed: flag,
    extend_expiry_date: flag,
    remind: flag,
    download_limit: z.unknown().optional(),
  }),
});
/** All a chunk key may send to PUT /transfer/{id}. */
const completeOnly = z.strictObject({ complete: z.literal(true) });

/** Transfer endpoints of the spec. */
export function transferRoutes(api: Api): void {
  const list = (ctx: FerryContext, { query }: { query: z.output<typeof pageQuery> }) =>
    presentList(ctx, ctx.state.services.transferViews.pageFor(actorOf(ctx), parsePage(query)));
  api.get('/transfer', users({ guests: true }), listInput, list);
  api.get('/transfer/@me', users({ guests: true }), listInput, list);
  api.get('/transfer/@all', admin, listInput, (ctx, { query }) =>
    presentList(ctx, ctx.state.services.transferViews.pageAll(parsePage(query))),
  );

  api.post('/transfer', users({ guests: true }), createInput, async (ctx, { body }) => {
    const s = ctx.state.services;
    const actor = actorOf(ctx);
    // Under a guest token `from` and `options` are ignored (spec), so they are not even checked. The body is
    // checked here, at the edge; the service takes the checked draft.
    const given = senderFieldsIgnored(actor) ? { ...body, from: undefined, options: undefined } : body;
    const draft = parseTransferInput(given, s.transferLimits(), s.clock());
    draft.encryption = parseEncryption(given, draft.files, s.encryptionPolicy());
    const sharing = parseSharingInput(body);
    draft.sharing = {
      downloadLimit: sharing.downloadLimit,
      passwordHash: sharing.password === null ? null : await hashLinkPassword(sharing.password),
    };
    const view = await s.transfers.create(actor, draft, await requestLang(ctx));
    return created(ctx, await present(ctx, view, true), `/transfer/${view.transfer.id}`);
  });

  // FileSender's listings of a recipient's files, for its command-line client (filesender.py -d): the download
  // token is the credential, checked as for a download (available, unexpired), so they are public like it.
  // Registered before /transfer/:id, which would take these names for ids.
  const recipientFiles = async (ctx: FerryContext, token: string | undefined) => {
    const downloads = ctx.state.services.downloads;
    const access = await downloads.access(token, linkUnlock(ctx, token));
    return { transfer: access.transfer, files: downloads.select(access, null) };
  };
  const tokenInput = input({ query: tokenQuery });
  api.get('/transfer/fileids', publicAccess, tokenInput, async (ctx, { query }) =>
    (await recipientFiles(ctx, query.token)).files.map((f) => f.id),
  );
  api.get('/transfer/fileidsextended', publicAccess, tokenInput, async (ctx, { query }) => {
    const { transfer, files } = await recipientFiles(ctx, query.token);
    const names = safeEntryNames(files.map((f) => f.name));
    return files.map((f, i) => presentFileExtended(transfer, f, names[i]));
  });

  const own = owner(loadTransfer, { notFound: Errors.transferNotFound });
  api.get('/transfer/:id', own, idInput, (ctx) => present(ctx, transferOf(ctx)));
  api.get('/transfer/:id/options', own, idInput, (ctx) => transferOf(ctx).options);
  api.get('/transfer/:id/auditlog', own, idInput, async (ctx) => {
    if (!ctx.state.services.settings.get().auditlog_enabled) return [];
    const lang = await requestLang(ctx);
    return (await ctx.state.services.transfers.auditLog(transferOf(ctx))).map((e) => presentAuditEntry(e, lang));
  });
  api.get('/transfer/:id/auditlog/mail', own, idInput, actingGet, async (ctx) => {
    await ctx.state.services.transfers.mailAuditLog(actorOf(ctx), transferOf(ctx), await requestLang(ctx));
    return true;
  });

  api.post('/transfer/:id/recipient', own, recipientInput, async (ctx, { body }) => {
    const r = await ctx.state.services.recipients.add(actorOf(ctx), transferOf(ctx), body.recipient);
    return created(ctx, await presentRecipientOf(ctx, r), `/recipient/${r.id}`);
  });

  // The chunk-upload key may only complete a Transfer (spec: PUT /transfer access).
  const ownOrKeyForComplete = owner(loadTransfer, {
    notFound: Errors.transferNotFound,
    chunkKey: (ctx) => bodyFits(ctx, completeOnly),
  });
  api.put('/transfer/:id', ownOrKeyForComplete, updateInput, async (ctx, { body }) => {
    const t = await ctx.state.services.transferUpdates.update(actorOf(ctx), transferOf(ctx), body);
    return present(ctx, t);
  });

  // The chunk-upload key may delete a Transfer only before it is available (spec: States, rule 2).
  const ownOrKeyBeforeAvailable = owner(loadTransfer, {
    notFound: Errors.transferNotFound,
    chunkKey: (_ctx, owned) => BEFORE_AVAILABLE.includes((owned.resource as Transfer).status),
  });
  api.delete('/transfer/:id', ownOrKeyBeforeAvailable, idInput, async (ctx) => {
    await ctx.state.services.transfers.close(actorOf(ctx), transferOf(ctx), 'deleted');
    return true;
  });
}
