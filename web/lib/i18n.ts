import { pluralKey } from '../../src/i18n/format';

/**
 * Translations from GET /lang, looked up with {name} placeholders; a missing key shows as itself. A text given
 * a numeric `count` takes the language's plural form (`key_one`, `key_other`, … from Intl.PluralRules).
 */
export type Translate = (key: string, vars?: Record<string, string | number>) => string;

export function translator(table: Record<string, string>, lang = 'en'): Translate {
  const has = (k: string) => k in table;
  return (key, vars = {}) => {
    const k = typeof vars.count === 'number' ? pluralKey(has, lang, key, vars.count) : key;
    return (table[k] ?? key).replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
  };
}

/** An error (REST id or network) as a sentence for the user; unknown ids fall back to a generic text. */
export function errorText(t: Translate, e: unknown): string {
  const id = typeof e === 'object' && e !== null && 'id' in e ? String((e as { id: unknown }).id) : null;
  if (id) {
    const text = t(id);
    return text === id ? t('ui_error_with_id', { id }) : text;
  }
  return t('ui_network_error');
}
