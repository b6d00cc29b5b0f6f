import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LANGS, ownTable, translate, type TextKey } from '../../src/i18n';
import { LANGUAGE_NAMES } from '../../src/i18n/languages';

// Every language ferry ships says everything English says: the pages, the mails and the error messages users
// read. Generic on purpose: it compares each language's key set with English's, so a key added to English (and
// to fr, de, nl) on another branch fails here until every language has it (docs/languages.md, "Adding a key").

const en = ownTable('en');
/** The names a text fills in; a language may name one fewer times than English does. */
const placeholders = (s: string) => [...new Set(s.match(/\{\w+\}/g) ?? [])].sort().join(' ');
/** A counted text: English has `base_one` and `base_other`; the form is picked by Intl.PluralRules. */
const COUNTED = /^(.*)_(zero|one|two|few|many|other)$/;
const countedBases = new Set(
  Object.keys(en).flatMap((k) => (k.endsWith('_one') && `${k.slice(0, -4)}_other` in en ? [k.slice(0, -4)] : [])),
);

/** Keys every language may leave out: they hold a product's name, written the same everywhere. */
const PRODUCT_NAMES = new Set(['app_name']);

/**
 * Texts that are rightly the same as English in a language: the same word ("Date", "Pause", "Status"),
 * a product's name or a technical term. Short and explicit: every other text identical to English counts as
 * left untranslated.
 */
const SAME_AS_ENGLISH: Record<string, string[]> = {
  fr: [
    'admin',
    'message',
    'ui_total',
    'ui_pause',
    'ui_date',
    'ui_actions',
    'ui_email',
    'ui_quota',
    'ui_quotas',
    'mail_auditlog_date',
    'ui_mail_date',
    'ui_invitations',
  ],
  // German says "Downloads" too.
  de: ['status', 'ui_details', 'ui_admin_role', 'ui_make_admin', 'ui_download_counts'],
  // Dutch says "download" too.
  nl: ['status', 'ui_details', 'ui_email', 'ui_downloads_count_one', 'ui_downloads_count_other', 'ui_download_counts'],
  es: ['ui_total'],
  // Italian says "file", "download" and "password" too; "file" does not change in the plural.
  it: [
    'password',
    'ui_encrypt_password',
    'ui_quota',
    'file',
    'ui_summary_files_one',
    'ui_n_files_one',
    'ui_downloads_count_one',
    'mail_virus_file',
  ],
  pt: ['ui_total', 'ui_email', 'ui_quota', 'ui_quotas'],
  pl: ['ui_email', 'ui_admin_role', 'ui_make_admin'],
  cs: ['ui_email', 'ui_role'],
  sv: ['admin', 'status'],
};

/** The plural categories a whole count from 0 to 1000 reaches in a language (a million files is out of range). */
function categoriesOf(lang: string): Set<string> {
  const rules = new Intl.PluralRules(lang);
  const seen = new Set<string>();
  for (let n = 0; n <= 1000; n++) seen.add(rules.select(n));
  return seen;
}

test('the picker lists every shipped language, each named in itself, and only those', () => {
  assert.equal(
    LANGUAGE_NAMES.map(([c]) => c),
    LANGS,
    'src/i18n/languages.ts and the tables agree',
  );
  assert.is(LANGS.length, 10);
  for (const [code, name] of LANGUAGE_NAMES) assert.is(ownTable(code).lang_name, name, `${code}.lang_name`);
});

for (const lang of LANGS.filter((l) => l !== 'en')) {
  test(`${lang}: every English text is there, translated, with the same placeholders and every plural form`, () => {
    const table = ownTable(lang);
    const allowed = new Set(SAME_AS_ENGLISH[lang] ?? []);
    const cats = categoriesOf(lang);
    const all = new Set(new Intl.PluralRules(lang).resolvedOptions().pluralCategories as string[]);
    const missing: string[] = [];
    const english: string[] = [];
    const wrongPlaceholders: string[] = [];
    const extra: string[] = [];
    for (const [key, text] of Object.entries(en)) {
      const m = COUNTED.exec(key);
      if (m && countedBases.has(m[1])) continue; // checked below, form by form
      if (PRODUCT_NAMES.has(key) && !(key in table)) continue;
      if (!(key in table)) {
        missing.push(key);
        continue;
      }
      if (placeholders(table[key]) !== placeholders(text)) wrongPlaceholders.push(`${key}: "${table[key]}"`);
      // A text with no word of its own ("{who}: {event}") reads the same in every language.
      const hasWords = /\p{L}{2,}/u.test(text.replace(/\{\w+\}/g, ''));
      if (hasWords && table[key] === text && !allowed.has(key)) english.push(`${key}: "${text}"`);
    }
    for (const base of countedBases) {
      // Every form the language's rule reaches, and `other`, the form for anything else (and the fallback).
      for (const cat of new Set([...cats, 'other'])) {
        const key = `${base}_${cat}`;
        if (!(key in table)) missing.push(key);
        else if (placeholders(table[key]) !== placeholders(en[`${base}_other`]))
          wrongPlaceholders.push(`${key}: "${table[key]}"`);
        else if (!allowed.has(key) && (table[key] === en[`${base}_${cat}`] || table[key] === en[`${base}_other`]))
          english.push(`${key}: "${table[key]}"`);
      }
    }
    for (const key of Object.keys(table)) {
      const m = COUNTED.exec(key);
      const isForm = m && countedBases.has(m[1]) && all.has(m[2]);
      if (!(key in en) && !isForm) extra.push(key);
    }
    assert.equal(missing, [], `${lang} lacks texts`);
    assert.equal(wrongPlaceholders, [], `${lang}: placeholders differ from English`);
    assert.equal(english, [], `${lang}: texts left in English (or add a key to SAME_AS_ENGLISH with a reason)`);
    assert.equal(extra, [], `${lang}: keys English does not have (a stale key, or a plural form the language lacks)`);
  });
}

/**
 * Placeholders that hold a number of things. A text with one is a counted text (`key_one`, `key_other` …),
 * so that no language reads "1 times" or "1 messages"; the few below are not counts of things, each said why.
 */
const COUNT_NAMES = new Set(['count', 'n', 'max', 'min', 'limit', 'days', 'hours', 'minutes', 'seconds']);
const NOT_COUNTED: Record<string, string> = {
  ui_downloaded_by: 'a fraction, "{n} of {total}", which no shipped language inflects by {n}',
  ui_opened_only: 'a label and its figure, "opened, not downloaded: {n}"',
  ui_login_throttled: 'a unit symbol, "{minutes} min"',
  ui_upload_waiting: 'a unit symbol, "{seconds} s"',
  ui_too_big: 'a size ("5 GB"), not a count',
  ui_download_limit_saved: 'a setting\'s new value, a number or the words "no limit"',
  ui_download_limit_range: 'the bound of a range of numbers ("from 1 to 1,000,000")',
  ui_download_limit_invalid: 'the bound of a range of numbers ("from 1 to 1,000,000")',
  ui_setting_hint_int: 'the bounds of a range of numbers ("from 1 to 36,500")',
  ui_setting_hint_days: 'the bounds of a range of numbers ("each from 1 to 365")',
  ui_setting_bad_int: 'the bounds of a range of numbers ("from 1 to 36,500")',
  ui_setting_bad_days: 'the bounds of a range of numbers ("each from 1 to 365")',
};

test('every count is a counted text, so each language says it in its own plural form', () => {
  const uncounted = Object.entries(en)
    .filter(([key]) => !COUNTED.test(key) && !(key in NOT_COUNTED))
    .filter(([, text]) => [...text.matchAll(/\{(\w+)\}/g)].some((m) => COUNT_NAMES.has(m[1])))
    .map(([key, text]) => `${key}: "${text}"`);
  assert.equal(uncounted, [], 'texts with a count but no plural forms');
  for (const key of Object.keys(NOT_COUNTED)) assert.ok(key in en, `${key} (NOT_COUNTED) is still a text`);
  const say = (lang: string, key: TextKey, count: number) => translate(lang, key, { count, dir: 'inbox' });
  assert.is(say('en', 'ui_mail_sink_count', 1), '1 message stored in inbox.');
  assert.is(say('en', 'ui_mail_sink_count', 2), '2 messages stored in inbox.');
  assert.is(say('en', 'ui_download_limit_of', 1), 'Each file may be downloaded 1 time through this link.');
  assert.is(say('pl', 'ui_too_many_files', 3), 'Naraz można wysłać najwyżej 3 pliki.');
  assert.is(say('cs', 'ui_expiry_hint', 1), 'Nejvýše 1 den od dneška.');
});

test('the plural rules behind the counted texts: Polish and Czech have their few/many forms, picked by count', async () => {
  const { translator } = await import('../../web/lib/i18n');
  const { translations } = await import('../../src/i18n');
  const files = (lang: string, n: number) => translator(translations(lang), lang)('ui_n_files', { count: n });
  assert.equal(
    [1, 2, 5, 22, 25].map((n) => files('pl', n)),
    ['1 plik', '2 pliki', '5 plików', '22 pliki', '25 plików'],
  );
  assert.equal(
    [1, 2, 5].map((n) => files('cs', n)),
    ['1 soubor', '2 soubory', '5 souborů'],
  );
  assert.equal(
    [0, 1, 2].map((n) => files('fr', n)),
    ['0 fichier', '1 fichier', '2 fichiers'],
  );
  assert.equal(
    [0, 1, 2].map((n) => files('sv', n)),
    ['0 filer', '1 fil', '2 filer'],
  );
});

test.run();
