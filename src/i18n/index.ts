import { en } from './en';
import { fr } from './fr';
import { de } from './de';
import { nl } from './nl';
import { es } from './es';
import { it } from './it';
import { pt } from './pt';
import { pl } from './pl';
import { cs } from './cs';
import { sv } from './sv';
import { uiEn } from './ui/en';
import { uiFr } from './ui/fr';
import { uiDe } from './ui/de';
import { uiNl } from './ui/nl';
import { uiEs } from './ui/es';
import { uiIt } from './ui/it';
import { uiPt } from './ui/pt';
import { uiPl } from './ui/pl';
import { uiCs } from './ui/cs';
import { uiSv } from './ui/sv';
import { mailEn } from './mail/en';
import { mailFr } from './mail/fr';
import { mailDe } from './mail/de';
import { mailNl } from './mail/nl';
import { mailEs } from './mail/es';
import { mailIt } from './mail/it';
import { mailPt } from './mail/pt';
import { mailPl } from './mail/pl';
import { mailCs } from './mail/cs';
import { mailSv } from './mail/sv';
import { LANGUAGE_NAMES } from './languages';
import type { TextKey } from './keys';
import { pluralKey } from './format';
import { sharingEn } from './sharing/en';
import { sharingFr } from './sharing/fr';
import { sharingDe } from './sharing/de';
import { sharingNl } from './sharing/nl';
import { sharingEs } from './sharing/es';
import { sharingIt } from './sharing/it';
import { sharingPt } from './sharing/pt';
import { sharingPl } from './sharing/pl';
import { sharingCs } from './sharing/cs';
import { sharingSv } from './sharing/sv';

/** Translation tables shipped in the binary; English is complete and the fallback for every other table. */
import type { Table } from './table';
export type { Table } from './table';
export type { TextKey, Translations } from './keys';
// The web pages' texts (src/i18n/ui/) sit under each core table, so a core key always wins.
// Mail texts (src/i18n/mail/) likewise.
const TABLES: Record<string, Table> = {
  en: { ...mailEn, ...uiEn, ...sharingEn, ...en },
  fr: { ...mailFr, ...uiFr, ...sharingFr, ...fr },
  de: { ...mailDe, ...uiDe, ...sharingDe, ...de },
  nl: { ...mailNl, ...uiNl, ...sharingNl, ...nl },
  es: { ...mailEs, ...uiEs, ...sharingEs, ...es },
  it: { ...mailIt, ...uiIt, ...sharingIt, ...it },
  pt: { ...mailPt, ...uiPt, ...sharingPt, ...pt },
  pl: { ...mailPl, ...uiPl, ...sharingPl, ...pl },
  cs: { ...mailCs, ...uiCs, ...sharingCs, ...cs },
  sv: { ...mailSv, ...uiSv, ...sharingSv, ...sv },
};
/** The shipped languages, in the pickers' order (src/i18n/languages.ts). */
export const LANGS: string[] = LANGUAGE_NAMES.map(([code]) => code).filter((code) => code in TABLES);

/** A language's own texts, without the English fallback: what the translation tests compare with English. */
export function ownTable(lang: string): Table {
  return TABLES[lang] ?? {};
}

export function isLang(code: unknown): code is string {
  return typeof code === 'string' && code in TABLES;
}

/** Normalises "fr-BE" to "fr" when only the base language is shipped. */
export function normaliseLang(code: string | null | undefined): string | null {
  if (!code) return null;
  const lower = code.trim().toLowerCase();
  if (lower in TABLES) return lower;
  const base = lower.split(/[-_]/)[0];
  return base in TABLES ? base : null;
}

/** Picks the first shipped language of an Accept-Language header, by quality. */
export function fromAcceptLanguage(header: string | undefined): string | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag, q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((x) => x.tag && x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    const lang = normaliseLang(tag);
    if (lang) return lang;
  }
  return null;
}

/** The merged table: English, then the configured default, then the chosen language on top. */
export function translations(lang: string, defaultLang = 'en'): Table {
  return {
    ...TABLES.en,
    ...(TABLES[normaliseLang(defaultLang) ?? 'en'] ?? {}),
    ...(TABLES[normaliseLang(lang) ?? 'en'] ?? {}),
  };
}

/**
 * A key made at run time (an error's message id, an audit event): the key when English has a text for it (or
 * its counted forms), else null. The one way a string becomes a TextKey; literal keys need no check.
 */
export function textKey(key: string): TextKey | null {
  return Object.hasOwn(TABLES.en, key) || Object.hasOwn(TABLES.en, `${key}_other`) ? (key as TextKey) : null;
}

/**
 * Looks a key up and fills {name} placeholders; an unknown key comes back as itself so gaps are visible. A text
 * given a numeric `count` takes the language's plural form (`key_one`, `key_other` …), as the pages' do.
 */
export function translate(
  lang: string,
  key: TextKey,
  vars: Record<string, string | number> = {},
  defaultLang = 'en',
): string {
  const table = translations(lang, defaultLang);
  const k =
    typeof vars.count === 'number' ? pluralKey((x) => x in table, normaliseLang(lang) ?? 'en', key, vars.count) : key;
  const text = table[k] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}
