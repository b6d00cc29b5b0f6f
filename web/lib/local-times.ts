import { formatDay, formatMoment } from '../../src/i18n/format';

/**
 * Server-rendered times are written in UTC, with the zone named; here they are written again in the reader's
 * own time zone, named too ("13 Dec 2026, 12:59 GMT+13"), so that a page never mixes zones: `time[data-moment]`
 * (an expiry, a mail's arrival), and `time[data-day]` (a day alone).
 */
export function localTimes(lang: string): void {
  for (const el of document.querySelectorAll<HTMLElement>('time[data-moment]'))
    el.textContent = formatMoment(Number(el.dataset.moment), lang);
  for (const el of document.querySelectorAll<HTMLElement>('time[data-day]'))
    el.textContent = formatDay(Number(el.dataset.day), lang);
}
