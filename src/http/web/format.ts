/**
 * Dates, sizes and plural forms as every page shows them: one format per language, from Intl, shared by the
 * server-rendered pages (download page) and the browser code (web/, bundled from here). Pure functions.
 */

import { pageLocale } from '../../i18n/dates';
import { numberFormat, pluralRules } from '../../i18n/intl-cache';

// The date formats live with the translations, so that mails (src/mail) write dates as the pages do.
export { formatDateTime, formatDay, pageLocale } from '../../i18n/dates';

/** Decimal (SI) units, written the SI way: kB, MB, GB; in French with octets (o, ko, Mo, Go), as French readers write them. */
const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];
const UNITS_FR = ['o', 'ko', 'Mo', 'Go', 'To'];

/** "12 B", "1.5 MB" ("1,5 MB" in French, German, Dutch): one decimal below 10, none above. */
export function formatBytes(n: number, lang: string): string {
  let v = n;
  let i = 0;
  const digits = () => (i === 0 || v >= 9.95 ? 0 : 1);
  // Moves up a unit when the rounded figure would read 1000 ("999.7 kB" is "1.0 MB", never "1,000 kB").
  while (i < UNITS.length - 1 && Math.round(v * 10 ** digits()) / 10 ** digits() >= 1000) {
    v /= 1000;
    i += 1;
  }
  const d = digits();
  // A no-break space: a figure never sits on one line and its unit on the next.
  const units = lang === 'fr' || lang.startsWith('fr-') ? UNITS_FR : UNITS;
  return `${numberFormat(pageLocale(lang), { maximumFractionDigits: d, minimumFractionDigits: d }).format(v)}\u00a0${units[i]}`;
}

/**
 * The key of a counted text: `key_one`, `key_other` … after the language's plural rule (French says
 * "0 fichier", English "0 files"), when the table has it; else the key itself.
 */
export function pluralKey(has: (key: string) => boolean, lang: string, key: string, count: number): string {
  const exact = `${key}_${pluralRules(pageLocale(lang)).select(count)}`;
  if (has(exact)) return exact;
  return has(`${key}_other`) ? `${key}_other` : key;
}
