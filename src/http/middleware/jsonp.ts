import { z } from 'zod';
import type { Middleware } from 'koa';
import { Errors } from '../../domain/errors';
import type { FerryState } from '../state';
import type { Logger } from '../../log';
import { renderError } from './errors';

/** A callback name: a dotted JavaScript identifier, one argument, of sane length. */
const CALLBACK = z
  .string()
  .max(128)
  .regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/);

/**
 * JSONP (docs/architecture.md, HTTP surface): `?callback=name` on GET only. The name is checked before anything runs, so a hostile
 * callback never reaches the output; errors raised below are wrapped too, so the caller's script sees them.
 * JSONP answers anonymous, guest-token and signed requests only (see below).
 */
export function jsonpMiddleware(log: Logger): Middleware<FerryState> {
  return async (ctx, next) => {
    if (ctx.query.callback === undefined) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw Errors.restJsonpGetOnly('callback');
    const named = CALLBACK.safeParse(ctx.query.callback);
    if (!named.success) throw Errors.restBadParameter('callback');
    const callback = named.data;
    try {
      await next();
    } catch (err) {
      renderError(ctx, err, log);
    } finally {
      const p = ctx.state.principal;
      if (p.type === 'user' && p.via === 'sp') {
        // Credentials a browser adds by itself (the session cookie, a proxy's login cookie) would let any site
        // read the user's data through a <script> tag: such requests get a plain JSON refusal, not a script.
        renderError(ctx, Errors.restAccessForbidden('callback'), log);
      } else if (ctx.response.is('json')) {
        const text = typeof ctx.body === 'string' ? ctx.body : JSON.stringify(ctx.body ?? null);
        const json = text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
        ctx.type = 'text/javascript';
        ctx.body = `${callback}(${json});`;
      }
    }
  };
}
