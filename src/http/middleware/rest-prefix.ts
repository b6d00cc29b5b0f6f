import type { Middleware } from 'koa';
import type { FerryState } from '../state';

/** Clients written for FileSender call {base_url}/rest.php/<endpoint>; serve them from the same routes. */
export function restPhpAlias(): Middleware<FerryState> {
  return async (ctx, next) => {
    if (ctx.path === '/rest.php' || ctx.path.startsWith('/rest.php/')) {
      ctx.path = ctx.path.slice('/rest.php'.length) || '/';
    }
    await next();
  };
}
