import { formatDay } from '../../i18n/dates';

/**
 * The spec's Date object: raw UNIX seconds plus the day "according to the language configuration": the
 * request's language, in the one format the pages and mails use ("5 Dec 2026", "5. Dez. 2026"), in UTC.
 */
export interface DateJson {
  raw: number;
  formatted: string;
}

/**
 * The formatted days already made, by language and UTC day. A page of 100 transfers carries some 800 dates (each
 * transfer's, file's and recipient's) on a few dozen days: formatting each through Intl was 4 % of a list's CPU
 * (docs/performance.md, "Scale"). Bounded: the oldest entry goes when it is full.
 */
const days = new Map<string, string>();
const MAX_DAYS = 4096;

export function presentDate(raw: number, lang: string): DateJson;
export function presentDate(raw: number | null | undefined, lang: string): DateJson | null;
export function presentDate(raw: number | null | undefined, lang: string): DateJson | null {
  if (raw === null || raw === undefined) return null;
  return { raw, formatted: dayOf(raw, lang) };
}

function dayOf(raw: number, lang: string): string {
  // formatDay says "—" for 0; any other second of a UTC day formats as that day.
  if (!raw) return formatDay(raw, lang, 'UTC');
  const key = `${lang}|${Math.floor(raw / 86400)}`;
  let shown = days.get(key);
  if (shown === undefined) {
    if (days.size >= MAX_DAYS) days.delete(days.keys().next().value!);
    shown = formatDay(raw, lang, 'UTC');
    days.set(key, shown);
  }
  return shown;
}
