/**
 * Dates in the one format of each language, for pages, mails and the spec's `formatted` date fields: the month
 * in letters and the day first, so that no order of numbers is ambiguous. Pure functions, also bundled into
 * the browser code.
 */

import { dateTimeFormat } from './intl-cache';

/** English pages use the day-month order ("5 Dec 2026"): the US order reads as another date to most readers. */
const LOCALE: Record<string, string> = { en: 'en-GB' };

export function pageLocale(lang: string): string {
  return LOCALE[lang] ?? lang;
}

/** Czech abbreviates no month: its short date is all figures ("5. 12. 2026"), so it writes the month whole. */
const MONTH: Record<string, 'short' | 'long'> = { cs: 'long' };

function month(lang: string): 'short' | 'long' {
  return MONTH[lang] ?? 'short';
}

/** "5 Dec 2026" / "5. Dez. 2026" / "5 déc. 2026": the month in letters, so no order of numbers is ambiguous. */
export function formatDay(unixSeconds: number | null | undefined, lang: string, timeZone?: string): string {
  if (!unixSeconds) return '—';
  return dateTimeFormat(pageLocale(lang), { day: 'numeric', month: month(lang), year: 'numeric', timeZone }).format(
    unixSeconds * 1000,
  );
}

/** The same day format with the time on a 24-hour clock: "5 Dec 2026, 14:30". */
export function formatDateTime(unixSeconds: number | null | undefined, lang: string, timeZone?: string): string {
  return dayAndTime(unixSeconds, lang, timeZone, false);
}

/**
 * A moment with its time zone named: "12 Dec 2026, 23:59 UTC", "13 Dec 2026, 12:59 GMT+13". For what ends or
 * happened at a time the reader must place (an expiry, a mail's arrival), where the day alone can be the
 * wrong one in the reader's zone.
 */
export function formatMoment(unixSeconds: number | null | undefined, lang: string, timeZone?: string): string {
  return dayAndTime(unixSeconds, lang, timeZone, true);
}

function dayAndTime(
  unixSeconds: number | null | undefined,
  lang: string,
  timeZone: string | undefined,
  named: boolean,
) {
  if (!unixSeconds) return '—';
  return dateTimeFormat(pageLocale(lang), {
    day: 'numeric',
    month: month(lang),
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    ...(named ? { timeZoneName: 'short' as const } : {}),
    timeZone,
  }).format(unixSeconds * 1000);
}
