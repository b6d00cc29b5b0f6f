import type { Middleware } from 'koa';
import type { FerryState } from '../state';

/**
 * Koa reads a request's path and query through `parseurl`, which hands any request target it cannot split
 * itself to Node's legacy `url.parse()`: the absolute form (`GET http://host/path`, which HTTP/1.1 servers must
 * accept), the asterisk form (`OPTIONS *`), a target holding a fragment (`#`) or white space. Inside the single
 * executable every dependency is application code to Node, so the first such request printed Node's DEP0169
 * deprecation warning, and `url.parse()` is the parser whose quirks that warning is about. This runs first and
 * gives Koa the origin form (`/path?query`) of every target, which `parseurl` splits without `url.parse()`.
 * `ctx.originalUrl` keeps the target as sent (a signed request is checked over it).
 */
export function originFormTarget(): Middleware<FerryState> {
  return (ctx, next) => {
    const target = originForm(ctx.req.url ?? '/');
    if (target !== ctx.req.url) ctx.req.url = target;
    return next();
  };
}

/** Characters after which `parseurl` gives up its own split (besides a target not starting with `/`). */
const UNSPLITTABLE = /[\t\n\f\r \u00a0\ufeff]/g;

export function originForm(target: string): string {
  let t = target;
  const hash = t.indexOf('#');
  if (hash >= 0) t = t.slice(0, hash); // a fragment is never part of a request target (RFC 9110, 7.1)
  if (!t.startsWith('/')) {
    // The absolute form: the scheme and authority go (RFC 9112, 3.2.2); `*` and anything else become a path.
    const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?]*/.exec(t);
    if (authority) t = t.slice(authority[0].length);
    if (!t.startsWith('/')) t = `/${t}`;
  }
  return t.replace(UNSPLITTABLE, (c) => encodeURIComponent(c));
}
