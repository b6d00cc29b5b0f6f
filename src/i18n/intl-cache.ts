/**
 * Intl formatters made once per locale and options, then reused. Building one is the costly part: a
 * DateTimeFormat compiles ICU's patterns for the locale (tens of µs and tens of kB of memory outside V8's heap,
 * given back only when a full collection finds the wrapper). Made per date written, GET /transfer/{id} built
 * a dozen per request: the server's RSS grew by some 40 kB a request (118 MB to 900 MB in 16,000 requests)
 * and its p99 reached 200 ms (docs/architecture.md, "Memory"). Pure code, also bundled into the browser's.
 */

/** Few keys exist (languages × formats × time zones); the bound only guards against a caller that varies. */
const MAX = 256;
const made = new Map<string, unknown>();

function cached<T>(key: string, make: () => T): T {
  let f = made.get(key) as T | undefined;
  if (f === undefined) {
    if (made.size >= MAX) made.delete(made.keys().next().value!);
    f = make();
    made.set(key, f);
  }
  return f;
}

export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return cached(`d|${locale}|${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(locale, options));
}

export function numberFormat(locale: string, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  return cached(`n|${locale}|${JSON.stringify(options)}`, () => new Intl.NumberFormat(locale, options));
}

export function pluralRules(locale: string): Intl.PluralRules {
  return cached(`p|${locale}`, () => new Intl.PluralRules(locale));
}
