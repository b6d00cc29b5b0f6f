import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { presentDate } from '../../src/http/presenters/date';
import { formatDay } from '../../src/i18n/dates';

// The spec's Date objects of an answer: each language's formatted UTC day is made once and kept, and says what
// formatDay says for every second of that day, in each language, whatever was asked before.

test('every second of a UTC day gives that day, in the language asked, as formatDay does', () => {
  const midnight = Date.UTC(2026, 11, 5) / 1000;
  for (const lang of ['en', 'de', 'fr', 'en'])
    for (const raw of [midnight, midnight + 1, midnight + 43_200, midnight + 86_399, midnight + 86_400, midnight - 1])
      assert.equal(presentDate(raw, lang), { raw, formatted: formatDay(raw, lang, 'UTC') }, `${lang} ${raw}`);
  assert.is(presentDate(midnight + 86_399, 'en').formatted, '5 Dec 2026');
  assert.is(presentDate(midnight + 86_400, 'en').formatted, '6 Dec 2026');
  assert.is.not(presentDate(midnight, 'de').formatted, presentDate(midnight, 'en').formatted);
});

test('no date is null; 0 says what formatDay says', () => {
  assert.is(presentDate(null, 'en'), null);
  assert.is(presentDate(undefined, 'en'), null);
  assert.equal(presentDate(0, 'en'), { raw: 0, formatted: formatDay(0, 'en', 'UTC') });
});

test('many days: the kept ones stay bounded and each is still right', () => {
  const start = Date.UTC(2000, 0, 1) / 1000;
  for (let d = 0; d < 6000; d++) presentDate(start + d * 86_400, 'en');
  assert.is(presentDate(start, 'en').formatted, formatDay(start, 'en', 'UTC'));
  assert.is(presentDate(start + 5999 * 86_400, 'en').formatted, formatDay(start + 5999 * 86_400, 'en', 'UTC'));
});

test.run();
