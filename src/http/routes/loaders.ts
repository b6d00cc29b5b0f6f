import type { Owned } from '../access';
import { Errors, ServiceError } from '../../domain/errors';
import type { FileRecord, Recipient, Transfer } from '../../domain/model';
import type { FerryContext } from '../state';
import { pathId } from '../actor';

/**
 * Owner-level loaders: find the resource by its path id and say who owns it (docs/architecture.md: access levels).
 *
 * Ids cannot be probed: a signed-in non-owner gets the same 404 as for an unknown id (owner()'s notFound),
 * and a caller with only a chunk key gets the same 401 for an unknown id as for a wrong key.
 */
async function found<T>(ctx: FerryContext, find: () => Promise<T>): Promise<T> {
  try {
    return await find();
  } catch (e) {
    if (e instanceof ServiceError && e.status === 404 && ctx.state.principal.type === 'anonymous')
      throw Errors.restAuthenticationRequired();
    throw e;
  }
}

export async function loadTransfer(ctx: FerryContext): Promise<Owned<Transfer>> {
  const t = await found(ctx, () => ctx.state.services.transfers.get(pathId(ctx)));
  return { resource: t, ownerId: t.userId, transferId: t.id, guestId: t.guestId };
}

export async function loadFile(ctx: FerryContext): Promise<Owned<{ file: FileRecord; transfer: Transfer }>> {
  const file = await found(ctx, () => ctx.state.services.uploads.getFile(pathId(ctx)));
  const t = await ctx.state.services.transfers.get(file.transferId);
  return { resource: { file, transfer: t }, ownerId: t.userId, transferId: t.id, guestId: t.guestId };
}

export async function loadRecipient(ctx: FerryContext): Promise<Owned<{ recipient: Recipient; transfer: Transfer }>> {
  const recipient = await found(ctx, () => ctx.state.services.recipients.get(pathId(ctx)));
  const t = await ctx.state.services.transfers.get(recipient.transferId);
  return { resource: { recipient, transfer: t }, ownerId: t.userId, transferId: t.id, guestId: t.guestId };
}
