import type { Owned } from '../access';
import type { FileRecord, Recipient, Transfer } from '../../domain/model';
import type { FerryContext } from '../state';
import { pathId } from '../actor';

/** Owner-level loaders: find the resource by its path id and say who owns it (design.md: access levels). */
export function loadTransfer(ctx: FerryContext): Owned<Transfer> {
  const t = ctx.state.services.transfers.get(pathId(ctx));
  return { resource: t, ownerId: t.userId, transferId: t.id, guestId: t.guestId };
}

export function loadFile(ctx: FerryContext): Owned<{ file: FileRecord; transfer: Transfer }> {
  const file = ctx.state.services.uploads.getFile(pathId(ctx));
  const t = ctx.state.services.transfers.get(file.transferId);
  return { resource: { file, transfer: t }, ownerId: t.userId, transferId: t.id, guestId: t.guestId };
}

export function loadRecipient(ctx: FerryContext): Owned<{ recipient: Recipient; transfer: Transfer }> {
  const recipient = ctx.state.services.recipients.get(pathId(ctx));
  const t = ctx.state.services.transfers.get(recipient.transferId);
  return { resource: { recipient, transfer: t }, ownerId: t.userId, transferId: t.id, guestId: t.guestId };
}
