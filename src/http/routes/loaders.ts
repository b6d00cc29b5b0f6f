import type { Owned } from '../access';
import { Errors, ServiceError } from '../../domain/errors';
import type { FileRecord, Recipient, Transfer } from '../../domain/model';
import type { FerryContext } from '../state';
import { pathId } from '../actor';

/**
 * Owner-level loaders: find the resource by its path id and say who owns it (design.md: access levels).
 *
 * Ids cannot be probed: a signed-in non-owner gets the same 404 as for an unknown id (owner()'s notFound),
 * and a caller with only a chunk key gets the same 401 for an unknown id as for a wrong key.
 */
function found<T>(ctx: FerryContext, find: () => T): T {
  try {
    return find();
  } catch (e) {
    if (e instanceof ServiceError && e.status === 404 && ctx.state.principal.type === 'anonymous') throw Errors.restAuthenticationRequired();
    throw e;
  }
}

export function loadTransfer(ctx: FerryContext): Owned<Transfer> {
  const t = found(ctx, () => ctx.state.services.transfers.get(pathId(ctx)));
  return { resource: t, ownerId: t.userId, transferId: t.id, guestId: t.guestId };
}

export function loadFile(ctx: FerryContext): Owned<{ file: FileRecord; transfer: Transfer }> {
  const file = found(ctx, () => ctx.state.services.uploads.getFile(pathId(ctx)));
  const t = ctx.state.services.transfers.get(file.transferId);
  return { resource: { file, transfer: t }, ownerId: t.userId, transferId: t.id, guestId: t.guestId };
}

export function loadRecipient(ctx: FerryContext): Owned<{ recipient: Recipient; transfer: Transfer }> {
  const recipient = found(ctx, () => ctx.state.services.recipients.get(pathId(ctx)));
  const t = ctx.state.services.transfers.get(recipient.transferId);
  return { resource: { recipient, transfer: t }, ownerId: t.userId, transferId: t.id, guestId: t.guestId };
}
