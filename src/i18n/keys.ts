import type { en } from './en';
import type { mailEn } from './mail/en';
import type { sharingEn } from './sharing/en';
import type { uiEn } from './ui/en';

/** The plural forms of Intl.PluralRules: a counted text is `key_one`, `key_other` … (src/i18n/format.ts). */
export type PluralForm = 'zero' | 'one' | 'two' | 'few' | 'many' | 'other';

type EnglishKey = keyof typeof en | keyof typeof uiEn | keyof typeof mailEn | keyof typeof sharingEn;
/** `ui_files` for `ui_files_one` / `ui_files_other`: what a counted text is looked up by. */
type PluralBase<K> = K extends `${infer B}_${PluralForm}` ? B : never;

/**
 * The key of a text: one of the English tables' keys (core, ui, mail, sharing), or the base of a counted one.
 * English is complete (test/unit/translations.test.ts), so a key that is not here has no text in any
 * language, and `t('no.such.key')` fails the typecheck instead of showing the key to a user.
 */
export type TextKey = EnglishKey | PluralBase<EnglishKey>;

/** A language's table: English's keys, and any plural form of a counted one (Polish and Czech have more forms). */
export type Translations = Partial<Record<TextKey | `${PluralBase<EnglishKey>}_${PluralForm}`, string>>;
