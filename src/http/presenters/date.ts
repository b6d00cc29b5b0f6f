import { formatDay } from '../../i18n/dates';

/**
 * The spec's Date object: raw UNIX seconds plus the day "according to the language configuration": the
 * request's language, in the one format the pages and mails use ("5 Dec 2026", "5. Dez. 2026"), in UTC.
 */
export interface DateJson {
  raw: number;
  formatted: string;
}

export function presentDate(raw: number, lang: string): DateJson;
export function presentDate(raw: number | null | undefined, lang: string): DateJson | null;
export function presentDate(raw: number | null | undefined, lang: string): DateJson | null {
  if (raw === null || raw === undefined) return null;
  return { raw, formatted: formatDay(raw, lang, 'UTC') };
}
