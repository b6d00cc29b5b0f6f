import { Api, created } from '../api';
import { linkUnlock } from '../download/link-unlock';
import { admin, owner, publicAccess, users } from '../access';
import { safeEntryNames } from '../../archive/layout';
import { Errors } from '../../domain/errors';
import type { Transfer } from '../../domain/model';
import { senderFieldsIgnored, TransferView } from '../../domain/transfers';
import { isEmail, parseTransferInput } from '../../domain/transfer-input';
import { type Page, parsePage } from '../../domain/paging';
import { parseEncryption } from '../../domain/encryption-input';
import { presentAuditEntry, presentFileExtended, presentRecipient, presentTransfer } from '../presenters/transfer';
import { presentSharing, presentVirusScan } from '../presenters/sharing';
import type { TransferJson } from '../presenters/wire';
import type { TransferReadouts } from '../../domain/transfer-views';
import { parseSharingInput } from '../../domain/sharing';
import { hashLinkPassword } from '../../domain/link-password';
import { actorOf, bodyObject } from '../actor';
import { loadTransfer } from './loaders';
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
async function presentList(ctx: FerryContext, read: (page: Page | null) => Promise<Transfer[]>) {
  const list = await read(parsePage(ctx.query));
  const [views, lang] = await Promise.all([ctx.state.services.transferViews.many(list), requestLang(ctx)]);
  return presentReadouts(ctx, views, lang);
}

const transferOf = (ctx: FerryContext) => ctx.state.resource as Transfer;

/** Transfer endpoints of the spec. */
export function transferRoutes(api: Api): void {
  const list = (ctx: FerryContext) =>
    presentList(ctx, (page) => ctx.state.services.transfers.pageFor(actorOf(ctx), page));
  api.get('/transfer', users({ guests: true }), list);
  api.get('/transfer/@me', users({ guests: true }), list);
  api.get('/transfer/@all', admin, (ctx) => presentList(ctx, (page) => ctx.state.services.transfers.pageAll(page)));

  api.post('/transfer', users({ guests: true }), async (ctx) => {
    const s = ctx.state.services;
    const actor = actorOf(ctx);
    const body = ctx.request.body;
    // Under a guest token `from` and `options` are ignored (spec), so they are not even checked. The body is
    // checked here, at the edge; the service takes the checked draft.
    const given =
      senderFieldsIgnored(actor) && body && typeof body === 'object' && !Array.isArray(body)
        ? { ...(body as object), from: undefined, options: undefined }
        : body;
    const draft = parseTransferInput(given, s.transferLimits(), s.clock());
    draft.encryption = parseEncryption(given as Record<string, unknown>, draft.files, s.encryptionPolicy());
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
  const recipientFiles = async (ctx: FerryContext) => {
    const downloads = ctx.state.services.downloads;
    const access = await downloads.access(ctx.query.token, linkUnlock(ctx));
    return { transfer: access.transfer, files: downloads.select(access, null) };
  };
  api.get('/transfer/fileids', publicAccess, async (ctx) => (await recipientFiles(ctx)).files.map((f) => f.id));
  api.get('/transfer/fileidsextended', publicAccess, async (ctx) => {
    const { transfer, files } = await recipientFiles(ctx);
    const names = safeEntryNames(files.map((f) => f.name));
    return files.map((f, i) => presentFileExtended(transfer, f, names[i]));
  });

  const own = owner(loadTransfer, { notFound: Errors.transferNotFound });
  api.get('/transfer/:id', own, (ctx) => present(ctx, transferOf(ctx)));
  api.get('/transfer/:id/options', own, (ctx) => transferOf(ctx).options);
  api.get('/transfer/:id/auditlog', own, async (ctx) => {
    if (!ctx.state.services.settings.get().auditlog_enabled) return [];
    const lang = await requestLang(ctx);
    return (await ctx.state.services.transfers.auditLog(transferOf(ctx))).map((e) => presentAuditEntry(e, lang));
  });
  api.get('/transfer/:id/auditlog/mail', own, actingGet, async (ctx) => {
    await ctx.state.services.transfers.mailAuditLog(actorOf(ctx), transferOf(ctx), await requestLang(ctx));
    return true;
  });

  api.post('/transfer/:id/recipient', own, async (ctx) => {
    const email = (ctx.request.body as { recipient?: unknown } | null)?.recipient;
    if (email === undefined) throw Errors.restMissingParameter('recipient');
    if (!isEmail(email)) throw Errors.badEmail('recipient');
    const s = ctx.state.services;
    const r = await s.recipients.add(actorOf(ctx), transferOf(ctx), email);
    const delivery = (await s.recipients.deliveryStatus([r.id])).delivery.get(r.id);
    return created(
      ctx,
      presentRecipient(r, s.settings.get().base_url, await requestLang(ctx), delivery, s.mailInbox !== null),
      `/recipient/${r.id}`,
    );
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
    const t = await ctx.state.services.transferUpdates.update(actorOf(ctx), transferOf(ctx), bodyObject(ctx));
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
