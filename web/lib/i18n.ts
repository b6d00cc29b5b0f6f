import { pluralKey } from '../../src/i18n/format';
import type { TextKey } from '../../src/i18n/keys';

/**
 * Translations from GET /lang, looked up with {name} placeholders; a missing key shows as itself. A text given
 * a numeric `count` takes the language's plural form (`key_one`, `key_other`, … from Intl.PluralRules).
 */
export interface Translate {
  (key: TextKey, vars?: Record<string, string | number>): string;
  /**
   * A key made at run time (an error's message id, an audit event): the key when the table has a text for it
   * (or its counted forms), else null. The one way a string becomes a TextKey; literal keys need no check.
   */
  known(key: string): TextKey | null;
}

export function translator(table: Record<string, string>, lang = 'en'): Translate {
  const has = (k: string) => Object.hasOwn(table, k);
  const t = (key: TextKey, vars: Record<string, string | number> = {}) => {
    const k = typeof vars.count === 'number' ? pluralKey(has, lang, key, vars.count) : key;
    return (table[k] ?? key).replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
  };
  return Object.assign(t, { known: (key: string) => (has(key) || has(`${key}_other`) ? (key as TextKey) : null) });
}

/** An error (REST id or network) as a sentence for the user; unknown ids fall back to a generic text. */
export function errorText(t: Translate, e: unknown): string {
  const id = typeof e === 'object' && e !== null && 'id' in e ? String((e as { id: unknown }).id) : null;
  if (id) {
    const key = t.known(id);
    return key ? t(key) : t('ui_error_with_id', { id });
  }
  return t('ui_network_error');
}
