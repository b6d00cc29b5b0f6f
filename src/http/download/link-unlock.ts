import type { LinkUnlock } from '../../domain/downloads';
import { unlockCookieName } from '../../domain/link-password';
import type { FerryContext } from '../state';
import { requestClientAddress } from '../client-address';
import { basePath } from '../web/layout';

/** The header a command-line client sends a link password in (never in the URL, where logs would keep it). */
export const LINK_PASSWORD_HEADER = 'X-Ferry-Link-Password';

/** What this request shows to open a password-protected link (docs/sharing.md, Link password). */
export function linkUnlock(ctx: FerryContext, token: string | undefined): LinkUnlock {
  return formUnlock(ctx, token ?? '', ctx.get(LINK_PASSWORD_HEADER));
}

/** The same for the password form (POST /download/unlock): its token and password, and the browser's proof. */
export function formUnlock(ctx: FerryContext, token: string, password: string): LinkUnlock {
  const proof = token ? ctx.cookies.get(unlockCookieName(token)) : undefined;
  return { password: password || undefined, proof, ip: requestClientAddress(ctx) };
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
