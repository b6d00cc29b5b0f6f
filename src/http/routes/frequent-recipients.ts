import { Api } from '../api';
import { users } from '../access';
import { Errors } from '../../domain/errors';
import type { UserRecord } from '../../domain/users';
import { userSelfOrAdmin } from './user';
import { z } from 'zod';
import { input, userIdParams } from '../input';

/** The optional `filterOp[contains]=<text>` query argument. */
const filter = z.object({ 'filterOp[contains]': z.string().max(254).optional() });
const contains = (query: z.output<typeof filter>) => query['filterOp[contains]'] ?? null;

/** GET /user/@me/frequent_recipients and /user/{id}/frequent_recipients (the user itself, admin). */
export function frequentRecipientRoutes(api: Api): void {
  // Registered before the /user/{id} form, which would otherwise take "@me" for an id.
  api.get('/user/@me/frequent_recipients', users(), input({ query: filter }), async (ctx, { query }) => {
    const p = ctx.state.principal;
    if (p.type !== 'user') throw Errors.restAuthenticationRequired();
    return ctx.state.services.transfers.frequentRecipients(p.user.id, contains(query));
  });
  const byId = input({ params: userIdParams, query: filter });
  api.get('/user/:id/frequent_recipients', userSelfOrAdmin(), byId, (ctx, { query }) => {
    const u = ctx.state.resource as UserRecord;
    return ctx.state.services.transfers.frequentRecipients(u.id, contains(query));
  });
}
