/** Sizes, durations and dates as people read them; dates and sizes in the one format of each language. */
import { formatBytes, formatDateTime, formatDay, formatMoment } from '../../src/i18n/format';
import { numberFormat } from '../../src/i18n/intl-cache';

export { formatBytes, formatDay, formatMoment };
/** A moment (audit log, last activity): the day as formatDay, then the time. */
export const formatDate = formatDateTime;
/** "12,345" / "12 345" / "12.345": a whole count in the language's grouping. */
export const formatCount = (v: number, lang: string): string => numberFormat(lang).format(v);

/** "45 s", "3 min 05 s", "1 h 05 min": the same abbreviations read in every language of the pages. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m > 0) return `${m} min ${String(r).padStart(2, '0')} s`;
  return `${r} s`;
}

/**
 * A time left, no more precise than it can be: single seconds under 10, seconds under a minute in steps of 5,
 * then whole minutes (rounded up), then hours and minutes.
 */
export function formatEta(seconds: number): string {
  // The last seconds count down one by one (5 s steps stopped at "5 s left" until the end).
  if (seconds < 10) return formatDuration(Math.max(1, Math.ceil(seconds)));
  if (seconds <= 55) return formatDuration(Math.ceil(seconds / 5) * 5);
  if (seconds < 3600) return `${Math.ceil(seconds / 60)} min`;
  return formatDuration(Math.ceil(seconds / 60) * 60);
}

/** yyyy-mm-dd in local time, the value of an <input type="date">. */
export function isoDay(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The end of a chosen day (23:59:59 local) as a UNIX timestamp; null for an invalid value. */
export function endOfDay(iso: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59);
  return Number.isNaN(d.getTime()) ? null : Math.floor(d.getTime() / 1000);
}

/**
 * Days from today until a moment's day, for "12 days left": counted in calendar days, as the date field's
 * "at most 20 days from today" is, so an invitation made today for 20 days has 20 left (not 21 because it
 * ends late in its last day); 1 on its last day, 0 once it has passed.
 */
export function daysLeft(unixSeconds: number, now = Date.now() / 1000): number {
  if (unixSeconds <= now) return 0;
  const day = (s: number) => {
    const d = new Date(s * 1000);
    return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  };
  return Math.max(1, Math.round((day(unixSeconds) - day(now)) / 86400_000));
}
