import { Api } from '../api';
import { users } from '../access';
import { Errors } from '../../domain/errors';
import type { UserRecord } from '../../domain/users';
import { userSelfOrAdmin } from './user';
import type { FerryContext } from '../state';

/** The optional `filterOp[contains]=<text>` query argument (also accepted as a parsed filterOp object). */
function contains(ctx: FerryContext): string | null {
  const v =
    ctx.query['filterOp[contains]'] ?? (ctx.query.filterOp as unknown as Record<string, unknown> | undefined)?.contains;
  if (v === undefined) return null;
  if (typeof v !== 'string' || v.length > 254) throw Errors.restBadParameter('filterOp[contains]');
  return v;
}

/** GET /user/@me/frequent_recipients and /user/{id}/frequent_recipients (the user itself, admin). */
export function frequentRecipientRoutes(api: Api): void {
  // Registered before the /user/{id} form, which would otherwise take "@me" for an id.
  api.get('/user/@me/frequent_recipients', users(), async (ctx) => {
    const p = ctx.state.principal;
    if (p.type !== 'user') throw Errors.restAuthenticationRequired();
    return ctx.state.services.transfers.frequentRecipients(p.user.id, contains(ctx));
  });
  api.get('/user/:id/frequent_recipients', userSelfOrAdmin(), (ctx) => {
    const u = ctx.state.resource as UserRecord;
    return ctx.state.services.transfers.frequentRecipients(u.id, contains(ctx));
  });
}
