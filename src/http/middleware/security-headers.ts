import type { Middleware } from 'koa';
import type { FerryState } from '../state';

/** Pages get a strict CSP: every script and style is served by ferry itself (air-gapped installs). */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(): Middleware<FerryState> {
  return async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    // Nothing to other sites; our own origin to ourselves. Under no-referrer a browser sends `Origin: null` with a
    // same-site form POST, and the login form sent before the page's script takes it over (a slow first load)
    // was refused as coming from another site (src/auth/origin.ts). The download page, whose URL holds a token,
    // sets no-referrer itself.
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    await next();
    // A page that set its own, stricter policy keeps it (a mail's HTML part shown in a sandboxed frame).
    if (ctx.response.is('html') && !ctx.state.ownCsp) ctx.set('Content-Security-Policy', PAGE_CSP);
    else if (!ctx.response.get('Content-Security-Policy'))
      ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
  };
}
