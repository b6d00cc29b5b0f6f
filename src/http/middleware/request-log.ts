import type { Middleware } from 'koa';
import { logRequest, Logger, redactQuery } from '../../log';
import type { Principal } from '../../auth/principal';
import { identityKinds } from '../../auth/providers/registry';
import type { FerryState } from '../state';
import { requestId } from '../request-id';

/** Who a log line names: never a token or secret, only ids. */
function actorOf(p: Principal | undefined): string | null {
  if (!p) return null;
  if (p.type === 'user') return p.user.id;
  if (p.type === 'guest') return `guest:${p.guest.id}`;
  if (p.type === 'application') return `app:${p.application}`;
  return null;
}

/**
 * Where the previous request on a keep-alive connection stopped reading: a request's headers (and a small
 * body) are read before any middleware runs, so its bytes in are counted from there, not from its start.
 */
const readAtEnd = new WeakMap<object, number>();

/**
 * One entry per request: its id (also sent as X-Request-Id and used as the uid of an error answer, so a
 * user's error report finds its line), method, route, path (secret query arguments masked), status,
 * duration, who asked, and the bytes each way. The logger writes it as the readable line or as JSON.
 */
export function requestLog(log: Logger): Middleware<FerryState> {
  // Secrets an identity provider's answer carries in its query, by each kind (src/auth/providers/kind.ts).
  const kindSecrets = identityKinds().flatMap((k) => k.secretQueryArgs ?? []);
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    const id = requestId();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    const path = ctx.path;
    const query = redactQuery(ctx.querystring, kindSecrets);
    const socket = ctx.req.socket;
    const written0 = socket?.bytesWritten ?? 0;
    const read0 = (socket && readAtEnd.get(socket)) ?? 0;
    try {
      await next();
    } finally {
      const done = () => {
        const read = socket?.bytesRead ?? 0;
        if (socket) readAtEnd.set(socket, read);
        logRequest(log, {
          id,
          method: ctx.method,
          route: (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? null,
          path: `${path}${query}`,
          status: ctx.status,
          ms: Number(process.hrtime.bigint() - start) / 1e6,
          user: actorOf(ctx.state.principal),
          bytes: Math.max(0, (socket?.bytesWritten ?? 0) - written0),
          bytes_in: Math.max(0, read - read0),
        });
      };
      // Logged once the answer has really gone (a streamed download's last byte, or the socket closing on
      // it), so that its duration and bytes are the real ones.
      if (ctx.res.writableFinished || ctx.res.destroyed) done();
      else ctx.res.once('close', done);
    }
  };
}
