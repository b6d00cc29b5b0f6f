import { fromAcceptLanguage, normaliseLang } from '../i18n';
import type { FerryContext } from './state';

/** Reads the user's stored language preference once per request (ctx.state.userLang), for the sync readers below. */
export async function loadUserLang(ctx: FerryContext): Promise<void> {
  if (ctx.state.userLang !== undefined) return;
  const { services, principal } = ctx.state;
  ctx.state.userLang = principal.type === 'user' ? ((await services.userLang?.(principal.user.id)) ?? null) : null;
}

/** The language of a request: the user's preference, else the browser's, else the configured default. */
export async function requestLang(ctx: FerryContext): Promise<string> {
  await loadUserLang(ctx);
  return knownRequestLang(ctx);
}

/** requestLang() once loadUserLang() has run (without it, the preference is not considered). */
export function knownRequestLang(ctx: FerryContext): string {
  const def = normaliseLang(ctx.state.services.settings.get().default_lang) ?? 'en';
  return normaliseLang(ctx.state.userLang) ?? fromAcceptLanguage(ctx.get('Accept-Language')) ?? def;
}
