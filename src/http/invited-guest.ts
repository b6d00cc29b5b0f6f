import type { Transfer } from '../domain/model';
import type { Step } from './access';

/**
 * Upload steps (chunks, whole files, file completion) of a Transfer a Guest created run only while that Guest
 * is still invited: withdrawn (409 guest_closed) or expired (410 guest_expired), its unfinished Transfers take
 * no more data, before a byte of the body is read. Runs after an owner-level check that left `{ transfer }` on
 * ctx.state.resource; the Transfer's own completion checks again inside its unit of work.
 */
export const invitedGuest: Step = async (ctx, next) => {
  const t = (ctx.state.resource as { transfer: Transfer }).transfer;
  if (t.guestId !== null) await ctx.state.services.guests.assertStillInvited(t.guestId);
  return next();
};
