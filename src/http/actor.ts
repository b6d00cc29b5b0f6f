import { ServiceError } from '../domain/errors';
import type { Actor } from '../domain/transfer-store';
import type { FerryContext } from './state';

/** The domain's view of who acts, from the resolved principal (or the chunk key that let the request in). */
export function actorOf(ctx: FerryContext): Actor {
  const p = ctx.state.principal;
  const ip = ctx.request.ip || null;
  switch (p.type) {
    case 'user':
      return { type: 'user', id: p.user.id, emails: p.user.emails, ip, fromMustBeOwn: p.via === 'sp', guestId: null };
    case 'guest':
      return { type: 'guest', id: String(p.guest.id), emails: [p.guest.email], ip, fromMustBeOwn: false, guestId: p.guest.id };
    case 'application':
      return { type: 'application', id: p.application, emails: [], ip, fromMustBeOwn: false, guestId: null };
    default: {
      const key = typeof ctx.query.key === 'string' ? ctx.query.key : '';
      if (!key) throw new ServiceError('rest_authentication_required', 401);
      return { type: 'key', id: `key:${key.slice(0, 8)}`, emails: [], ip, fromMustBeOwn: false, guestId: null };
    }
  }
}

/** A path id: a positive integer, else 400 rest_bad_parameter naming it. */
export function pathId(ctx: FerryContext, name = 'id'): number {
  const raw = ctx.params[name];
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new ServiceError('rest_bad_parameter', 400, [name]);
  return Number(raw);
}

/** The JSON body as an object (PUT/POST bodies); anything else is a bad request body. */
export function bodyObject(ctx: FerryContext): Record<string, unknown> {
  const b = ctx.request.body;
  if (b === undefined || b === null || (typeof b === 'object' && !Array.isArray(b))) return (b ?? {}) as Record<string, unknown>;
  throw new ServiceError('bad_request_body', 400);
}
