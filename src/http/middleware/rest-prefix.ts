import type { Middleware } from 'koa';
import type { FerryState } from '../state';

/**
 * Clients written for FileSender call {base_url}/rest.php/<endpoint>; serve them from the same routes. A client
 * that appends "/<endpoint>" to the spec's remote_config URL ("{base_url}/") asks for "//<endpoint>", and
 * filesender.py with a base_url ending in "rest.php/" asks for "rest.php//<endpoint>": the doubled slash is one
 * (routing only: a signature is checked over the path as sent).
 */
export function restPhpAlias(): Middleware<FerryState> {
  return async (ctx, next) => {
    if (ctx.path.startsWith('//')) ctx.path = ctx.path.replace(/^\/+/, '/');
    if (ctx.path === '/rest.php' || ctx.path.startsWith('/rest.php/')) {
      ctx.path = ctx.path.slice('/rest.php'.length).replace(/^\/+/, '/') || '/';
    }
    await next();
  };
}
