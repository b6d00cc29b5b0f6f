/**
 * Sizes as each language writes them, for pages and mails alike: decimal (SI) multiples, figures and unit
 * symbols from Intl, so French reads "1,5 Mo" and "12 o" where English reads "1.5 MB" and "12 B". Pure
 * functions, also bundled into the browser code.
 */

import { pageLocale } from './dates';
import { numberFormat } from './intl-cache';

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/**
 * The unit symbol Intl gives a byte count is a word in some languages ("12 byte", "12 bytes"); those read the
 * SI symbol B, as every page did before. A one-letter symbol ("o" in French, "B") is kept.
 */
function byteSymbolOk(parts: Intl.NumberFormatPart[]): boolean {
  const unit = parts.find((p) => p.type === 'unit');
  return !!unit && unit.value.length === 1;
}

/** "12 B", "1.5 MB", "1,5 Mo", "999.7 kB" as "1.0 MB": one decimal below 10, none above. */
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
  const locale = pageLocale(lang);
  const parts = numberFormat(locale, {
    style: 'unit',
    unit: UNITS[i],
    unitDisplay: 'short',
    maximumFractionDigits: d,
    minimumFractionDigits: d,
  }).formatToParts(v);
  if (i === 0 && !byteSymbolOk(parts)) {
    return `${numberFormat(locale, { maximumFractionDigits: 0 }).format(v)}\u00a0B`;
  }
  // A no-break space: a figure never sits on one line and its unit on the next.
  return parts.map((p) => (p.type === 'literal' && p.value === ' ' ? '\u00a0' : p.value)).join('');
}
