import { Errors } from '../domain/errors';
import type { Actor, Transfer } from '../domain/model';
import type { FerryContext } from './state';
import { requestClientAddress } from './client-address';
import { idParams, keyQuery, parseParams, parseQuery } from './input';

/** The domain's view of who acts, from the resolved principal (or the chunk key that let the request in). */
export function actorOf(ctx: FerryContext): Actor {
  const p = ctx.state.principal;
  const ip = requestClientAddress(ctx) || null;
  switch (p.type) {
    case 'user':
      // `from` must be one of the user's own addresses, whether signed in or signing with the user's own secret;
      // only a remote application, trusted by the admin, may set it (docs/hardening.md, "Sender addresses").
      return {
        type: 'user',
        id: p.user.id,
        emails: p.user.emails,
        ip,
        fromMustBeOwn: p.via !== 'remote_application',
        guestId: null,
      };
    case 'guest':
      return {
        type: 'guest',
        id: String(p.guest.id),
        emails: [p.guest.email],
        ip,
        fromMustBeOwn: false,
        guestId: p.guest.id,
      };
    case 'application':
      return { type: 'application', id: p.application, emails: [], ip, fromMustBeOwn: false, guestId: null };
    default: {
      // Let in by a chunk-upload key: it acts as the Transfer's uploader (the audit log names them, not the key).
      const t = transferOfResource(ctx.state.resource);
      if (!t || parseQuery(ctx, keyQuery).key === undefined) throw Errors.restAuthenticationRequired();
      if (t.guestId !== null)
        return {
          type: 'guest',
          id: String(t.guestId),
          emails: [t.userEmail],
          ip,
          fromMustBeOwn: false,
          guestId: t.guestId,
        };
      return { type: 'user', id: t.userId, emails: [t.userEmail], ip, fromMustBeOwn: true, guestId: null };
    }
  }
}

/** The Transfer an owner-level route loaded: the resource itself, or the one a File or Recipient belongs to. */
function transferOfResource(r: unknown): Transfer | null {
  if (!(r instanceof Object)) return null;
  if ('transfer' in r) return (r as { transfer: Transfer }).transfer;
  return 'userId' in r && 'status' in r ? (r as Transfer) : null;
}

/** The path's `:id`, for an owner-level loader: a positive integer, else 400 rest_bad_parameter naming it. */
export function pathId(ctx: FerryContext): number {
  return parseParams(ctx, idParams).id;
}
