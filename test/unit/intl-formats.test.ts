import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatBytes, formatDateTime, formatDay, pluralKey } from '../../src/i18n/format';
import { dateTimeFormat } from '../../src/i18n/intl-cache';

// Every date, size and count a page, a mail or a `formatted` field shows goes through these functions, many
// times per request. Each Intl formatter built holds ICU memory outside V8's heap until a full collection: built
// per call, GET /transfer/{id} grew the server by some 40 kB a request (docs/architecture.md, "Memory").

/** Counts the formatters of one kind built while fn runs. */
function built<K extends 'DateTimeFormat' | 'NumberFormat' | 'PluralRules'>(kind: K, fn: () => void): number {
  const Original = Intl[kind] as any;
  let count = 0;
  const Counting = function (this: unknown, ...args: unknown[]) {
    count += 1;
    return new Original(...args);
  };
  Object.assign(Counting, Original);
  (Intl as any)[kind] = Counting;
  try {
    fn();
  } finally {
    (Intl as any)[kind] = Original;
  }
  return count;
}

test('dates: the one format per language, and one formatter per language and format however many dates are written', () => {
  const day = 1_796_428_800; // 5 Dec 2026, 00:00 UTC
  let out: string[] = [];
  const n = built('DateTimeFormat', () => {
    for (let i = 0; i < 1000; i++) out = ['en', 'de', 'fr'].map((l) => formatDay(day + i, l, 'UTC'));
    for (let i = 0; i < 1000; i++) formatDateTime(day + i, 'en', 'UTC');
  });
  assert.equal(out, ['5 Dec 2026', '5. Dez. 2026', '5 déc. 2026']);
  // Czech abbreviates months with figures ("5. 12. 2026"): it gets the month in letters, whole.
  assert.equal(
    ['es', 'it', 'pt', 'pl', 'cs', 'sv'].map((l) => formatDay(day, l, 'UTC')),
    ['5 dic 2026', '5 dic 2026', '5 de dez. de 2026', '5 gru 2026', '5. prosince 2026', '5 dec. 2026'],
  );
  assert.is(formatDateTime(day + 14 * 3600 + 30 * 60, 'en', 'UTC'), '5 Dec 2026, 14:30');
  assert.ok(n <= 4, `${n} DateTimeFormat built for 4,000 dates in 4 formats`);
});

test('sizes and plural forms: one formatter per language and precision', () => {
  let sizes: string[] = [];
  const numbers = built('NumberFormat', () => {
    for (let i = 0; i < 1000; i++)
      sizes = [
        formatBytes(1_500_000, 'en'),
        formatBytes(1_500_000, 'de'),
        formatBytes(12, 'en'),
        formatBytes(999_700, 'fr'),
      ];
  });
  // Each language's own unit symbols from Intl: French writes octets (Mo), with its narrow no-break space.
  assert.equal(sizes, ['1.5\u00a0MB', '1,5\u00a0MB', '12\u00a0B', '1,0\u202fMo']);
  assert.ok(numbers <= 5, `${numbers} NumberFormat built for 4,000 sizes`);
  assert.equal(
    ['es', 'it', 'pt', 'pl', 'cs', 'sv'].map((l) => formatBytes(1_500_000, l)),
    Array(6).fill('1,5\u00a0MB'),
  );
  assert.equal(
    ['fr', 'pl', 'cs', 'sv'].map((l) => formatBytes(12, l)),
    ['12\u202fo', '12\u00a0B', '12\u00a0B', '12\u00a0B'],
  );
  const has = (k: string) => ['files_one', 'files_other'].includes(k);
  let keys: string[] = [];
  const rules = built('PluralRules', () => {
    for (let i = 0; i < 1000; i++)
      keys = [pluralKey(has, 'en', 'files', 1), pluralKey(has, 'en', 'files', 0), pluralKey(has, 'fr', 'files', 0)];
  });
  assert.equal(keys, ['files_one', 'files_other', 'files_one']);
  assert.ok(rules <= 2, `${rules} PluralRules built for 3,000 counts`);
});

test('the cache is bounded: a caller varying its options without end does not keep every formatter', () => {
  const first = dateTimeFormat('en-GB', { timeZone: 'UTC', year: 'numeric' });
  assert.is(dateTimeFormat('en-GB', { timeZone: 'UTC', year: 'numeric' }), first, 'reused');
  for (let i = 0; i < 300; i++) dateTimeFormat(`en-GB-x-t${i}`, { timeZone: 'UTC', year: 'numeric' });
  assert.is.not(dateTimeFormat('en-GB', { timeZone: 'UTC', year: 'numeric' }), first, 'the oldest was let go');
});

test.run();
