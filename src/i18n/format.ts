/**
 * Dates, sizes and plural forms as every page shows them: one format per language, from Intl, shared by the
 * server-rendered pages (download page) and the browser code (web/, bundled from here). Pure functions.
 */

import { pageLocale } from './dates';
import { pluralRules } from './intl-cache';

// The date formats live with the translations, so that mails (src/mail) write dates as the pages do.
export { formatDateTime, formatDay, formatMoment, pageLocale } from './dates';

// Sizes live with the translations (src/i18n/sizes.ts), in each language's own units.
export { formatBytes } from './sizes';

/**
 * The key of a counted text: `key_one`, `key_other` … after the language's plural rule (French says
 * "0 fichier", English "0 files"), when the table has it; else the key itself.
 */
export function pluralKey(has: (key: string) => boolean, lang: string, key: string, count: number): string {
  const exact = `${key}_${pluralRules(pageLocale(lang)).select(count)}`;
  if (has(exact)) return exact;
  return has(`${key}_other`) ? `${key}_other` : key;
}
