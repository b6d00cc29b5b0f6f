import type { Middleware } from 'koa';
import { Logger, redactQuery } from '../../log';
import type { FerryState } from '../state';

/** One line per request: method, path (secret query arguments masked), status, duration. */
export function requestLog(log: Logger): Middleware<FerryState> {
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    const path = ctx.path;
    const query = redactQuery(ctx.querystring);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const logLine = () => log.info(`${ctx.method} ${path}${query} ${ctx.status} ${ms.toFixed(1)}ms`);
      // Streamed bodies (downloads) are logged when the response has really finished.
      if (ctx.res.writableFinished || !ctx.body || typeof (ctx.body as { pipe?: unknown }).pipe !== 'function') logLine();
      else ctx.res.once('close', logLine);
    }
  };
}
