import type { LinkUnlock } from '../../domain/downloads';
import { unlockCookieName } from '../../domain/link-password';
import type { FerryContext } from '../state';
import { basePath } from '../web/layout';

/** The header a command-line client sends a link password in (never in the URL, where logs would keep it). */
export const LINK_PASSWORD_HEADER = 'X-Ferry-Link-Password';

/** What this request shows to open a password-protected link (docs/sharing.md, Link password). */
export function linkUnlock(ctx: FerryContext): LinkUnlock {
  const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
  const password = ctx.get(LINK_PASSWORD_HEADER) || undefined;
  return { password, proof: token ? ctx.cookies.get(unlockCookieName(token)) : undefined, ip: ctx.request.ip || '' };
}

/** Keeps the proof in an HttpOnly cookie for the transfer's life, Secure when base_url is https. */
export function setUnlockCookie(ctx: FerryContext, token: string, proof: string, expires: number): void {
  const secure = ctx.state.services.settings.get().base_url.startsWith('https:');
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(unlockCookieName(token), proof, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: `${basePath(ctx)}/`,
    expires: new Date(expires * 1000),
    overwrite: true,
  });
}
