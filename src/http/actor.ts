import { Errors } from '../domain/errors';
import type { Actor, Transfer } from '../domain/model';
import type { FerryContext } from './state';
import { requestClientAddress } from './client-address';

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
      if (!t || typeof ctx.query.key !== 'string') throw Errors.restAuthenticationRequired();
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
  if (!r || typeof r !== 'object') return null;
  if ('transfer' in r) return (r as { transfer: Transfer }).transfer;
  return 'userId' in r && 'status' in r ? (r as Transfer) : null;
}

/** A path id: a positive integer, else 400 rest_bad_parameter naming it. */
export function pathId(ctx: FerryContext, name = 'id'): number {
  const raw = ctx.params[name];
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw Errors.restBadParameter(name);
  return Number(raw);
}

/** The JSON body as an object (PUT/POST bodies); anything else is a bad request body. */
export function bodyObject(ctx: FerryContext): Record<string, unknown> {
  const b = ctx.request.body;
  if (b === undefined || b === null || (typeof b === 'object' && !Array.isArray(b)))
    return (b ?? {}) as Record<string, unknown>;
  throw Errors.badRequestBody();
}
