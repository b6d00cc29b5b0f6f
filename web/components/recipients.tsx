import { useEffect, useState } from 'preact/hooks';
import { useApp } from '../lib/context';
// The server's own address check, bundled into the page: the form accepts exactly what the API accepts.
import { isEmail } from '../../src/domain/transfer-input';

interface Props {
  value: string[];
  onChange(v: string[]): void;
  id: string;
  label: string;
  max?: number;
}

/**
 * Recipient addresses as removable chips. Typing Enter, a comma, a semicolon or leaving the field adds what
 * was typed (several addresses pasted at once too); suggestions come from the user's frequent recipients
 * through a native <datalist>, which keyboards and screen readers already know how to use.
 */
export function RecipientsInput({ value, onChange, id, label, max }: Props) {
  const { api, t, user } = useApp();
  const [text, setText] = useState('');
  const [bad, setBad] = useState<string | null>(null);
  const [suggestions, setSuggestions] = useState<string[]>(user?.frequent_recipients ?? []);

  useEffect(() => {
    if (!user || text.length < 2) return;
    const timer = setTimeout(() => {
      api
        .get<string[]>('/user/@me/frequent_recipients', { query: { 'filterOp[contains]': text } })
        .then((list) => Array.isArray(list) && setSuggestions(list))
        .catch(() => undefined);
    }, 200);
    return () => clearTimeout(timer);
  }, [text]);

  const commit = (raw: string): boolean => {
    const parts = addressesIn(raw);
    if (parts.length === 0) return true;
    const wrong = parts.find((p) => !isEmail(p));
    if (wrong) {
      setBad(wrong);
      return false;
    }
    const next = [...value];
    for (const p of parts) if (!next.some((v) => v.toLowerCase() === p.toLowerCase())) next.push(p);
    onChange(max ? next.slice(0, max) : next);
    setText('');
    setBad(null);
    return true;
  };

  return (
    <div class="field recipients">
      <label for={id}>{label}</label>
      {value.length > 0 && (
        <ul class="chips" aria-label={label}>
          {value.map((r) => (
            <li key={r}>
              <span>{r}</span>
              <button
                type="button"
                class="icon"
                aria-label={t('ui_remove_named', { name: r })}
                onClick={() => onChange(value.filter((v) => v !== r))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="row">
        <input
          id={id}
          type="email"
          multiple
          list={`${id}-suggestions`}
          autocomplete="off"
          value={text}
          aria-invalid={bad ? 'true' : undefined}
          aria-describedby={bad ? `${id}-error` : `${id}-hint`}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' || e.key === ',' || e.key === ';') {
              e.preventDefault();
              commit(text);
            }
          }}
          onBlur={() => commit(text)}
        />
        <button type="button" onClick={() => commit(text)}>
          {t('ui_add')}
        </button>
      </div>
      <datalist id={`${id}-suggestions`}>
        {suggestions
          .filter((s) => !value.includes(s))
          .map((s) => (
            <option key={s} value={s} />
          ))}
      </datalist>
      <p id={`${id}-hint`} class="hint">
        {t('ui_recipients_hint')}
      </p>
      {bad && (
        <p id={`${id}-error`} class="error" role="alert">
          {t('ui_bad_email', { email: bad })}
        </p>
      )}
    </div>
  );
}

/**
 * The addresses in what was typed or pasted: commas, semicolons and line breaks separate them; spaces too, but
 * only where every word is an address ("a@x.org b@y.org"). Otherwise the whole piece is one wrong entry, and
 * the error quotes it as typed ("not an address"), not its first word.
 */
export function addressesIn(raw: string): string[] {
  return raw
    .split(/[,;\n]+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .flatMap((piece) => {
      const words = piece.split(/\s+/);
      return words.length > 1 && words.every((w) => isEmail(w)) ? words : [piece];
    });
}
