import { fromAcceptLanguage, normaliseLang } from '../i18n';
import type { FerryContext } from './state';

/** The language of a request: the user's preference, else the browser's, else the configured default. */
export function requestLang(ctx: FerryContext): string {
  const { services, principal } = ctx.state;
  const def = normaliseLang(services.settings.get().default_lang) ?? 'en';
  const pref = principal.type === 'user' ? services.userLang?.(principal.user.id) : null;
  return normaliseLang(pref) ?? fromAcceptLanguage(ctx.get('Accept-Language')) ?? def;
}
