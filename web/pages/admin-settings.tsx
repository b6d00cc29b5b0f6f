import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { errorText, type Translate } from '../lib/i18n';
import { useResource } from '../lib/use-resource';
import { formatBytes, formatCount } from '../lib/format';
import { ApiError } from '../lib/api';
import type { TextKey } from '../../src/i18n/keys';

/** GET /config as the settings page reads it (src/http/routes/config.ts). */
interface ConfigJson extends Record<string, unknown> {
  overridden: string[];
  config_file: Record<string, unknown>;
  disclosable: string[];
  file_only: Record<string, string | number | boolean | null>;
}

/** How a setting is typed in and checked: a whole number in a range, a list of them, a size, option names. */
type Kind =
  | { type: 'int'; min: number; max: number }
  | { type: 'days'; min: number; max: number }
  | { type: 'size' }
  | { type: 'names' };

/** What PUT /config may change, in the order the page shows them (quotas and the public address have their own forms). */
const FIELDS: [key: string, label: TextKey, kind: Kind][] = [
  ['default_transfer_days_valid', 'ui_setting_default_transfer_days_valid', { type: 'int', min: 1, max: 36500 }],
  ['max_transfer_days_valid', 'ui_setting_max_transfer_days_valid', { type: 'int', min: 1, max: 36500 }],
  ['allow_transfer_expiry_date_extension', 'ui_setting_extensions', { type: 'days', min: 1, max: 36500 }],
  ['transfer_automatic_reminder', 'ui_setting_transfer_reminders', { type: 'days', min: 1, max: 365 }],
  ['default_guest_days_valid', 'ui_setting_default_guest_days_valid', { type: 'int', min: 1, max: 36500 }],
  ['max_guest_days_valid', 'ui_setting_max_guest_days_valid', { type: 'int', min: 1, max: 36500 }],
  ['guest_automatic_reminder', 'ui_setting_guest_reminders', { type: 'days', min: 1, max: 365 }],
  ['max_transfer_size', 'ui_setting_max_transfer_size', { type: 'size' }],
  ['max_transfer_files', 'ui_setting_max_transfer_files', { type: 'int', min: 1, max: 10000 }],
  ['max_transfer_recipients', 'ui_setting_max_transfer_recipients', { type: 'int', min: 1, max: 100000 }],
  ['disclose', 'ui_setting_disclose', { type: 'names' }],
];

const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12 };

/** A value as the field shows it: "7, 3, 1" for lists, "5 GB" for a size, the number else. */
function shown(kind: Kind, v: unknown, lang: string): string {
  if (Array.isArray(v)) return v.join(', ');
  if (kind.type === 'size' && typeof v === 'number') return formatBytes(v, lang).replace(/\u00a0/g, ' ');
  return v == null ? '' : String(v);
}

/** What was typed as the value PUT /config takes, or the problem in words. */
function parse(
  t: Translate,
  lang: string,
  label: string,
  kind: Kind,
  raw: string,
  names: string[],
): { value: unknown } | { problem: string } {
  const text = raw.trim();
  const range = (min: number, max: number) => ({ min: formatCount(min, lang), max: formatCount(max, lang) });
  if (kind.type === 'int') {
    const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    return n >= kind.min && n <= kind.max
      ? { value: n }
      : { problem: t('ui_setting_bad_int', { label, value: text, ...range(kind.min, kind.max) }) };
  }
  if (kind.type === 'days') {
    const parts = text === '' ? [] : text.split(/[\s,;]+/).filter(Boolean);
    const days = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
    return days.every((d) => d >= kind.min && d <= kind.max)
      ? { value: days }
      : { problem: t('ui_setting_bad_days', { label, value: text, ...range(kind.min, kind.max) }) };
  }
  if (kind.type === 'size') {
    const m = /^(\d+(?:[.,]\d+)?)\s*([kmgt]?b)?$/i.exec(text);
    const bytes = m ? Math.round(Number(m[1].replace(',', '.')) * UNITS[(m[2] ?? 'b').toLowerCase()]) : 0;
    return bytes >= 1 && Number.isSafeInteger(bytes)
      ? { value: bytes }
      : { problem: t('ui_setting_bad_size', { label, value: text }) };
  }
  const list = text === '' ? [] : text.split(/[\s,;]+/).filter(Boolean);
  const wrong = list.filter((n) => !names.includes(n));
  return wrong.length === 0
    ? { value: list }
    : { problem: t('ui_setting_bad_names', { label, value: wrong.join(', ') }) };
}

/**
 * Administration → Settings: what PUT /config may change, each with its range said and checked in words before
 * anything is sent; a setting changed here says what the config file has; and, read-only, what only the config
 * file sets.
 */
export function AdminSettings() {
  const { api, t, lang } = useApp();
  const cfg = useResource(() => api.get<ConfigJson>('/config'));
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  if (!cfg.data)
    return cfg.error ? (
      <p class="error" role="alert">
        {errorText(t, cfg.error)}
      </p>
    ) : (
      <p aria-busy="true">{t('ui_loading')}</p>
    );
  const c = cfg.data;
  const save = async (e: Event) => {
    e.preventDefault();
    setNote(null);
    const body: Record<string, unknown> = {};
    const found: Record<string, string> = {};
    for (const [key, label, kind] of FIELDS) {
      if (!(key in typed) || typed[key] === shown(kind, c[key], lang)) continue;
      const r = parse(t, lang, t(label), kind, typed[key], c.disclosable);
      if ('problem' in r) found[key] = r.problem;
      else body[key] = r.value;
    }
    setProblems(found);
    if (Object.keys(found).length) return setNote({ ok: false, text: t('ui_settings_not_saved') });
    if (Object.keys(body).length === 0) return setNote({ ok: true, text: t('ui_settings_unchanged') });
    setBusy(true);
    try {
      await api.put('/config', body);
      setTyped({});
      setNote({ ok: true, text: t('ui_saved') });
      cfg.reload();
    } catch (err) {
      // The server names the settings it refused (together, as "max_transfer_days_valid" after a cross-check).
      const refused = err instanceof ApiError ? (err.details ?? []) : [];
      const labels = FIELDS.filter(([k]) => refused.includes(k)).map(([, l]) => t(l));
      setNote({
        ok: false,
        text: labels.length ? t('ui_settings_refused', { names: labels.join(', ') }) : errorText(t, err),
      });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <form class="admin-settings" onSubmit={save} aria-labelledby="settings-title" noValidate>
        <h2 id="settings-title">{t('ui_settings')}</h2>
        <p class="hint">{t('ui_settings_hint')}</p>
        {FIELDS.map(([key, label, kind]) => {
          const id = `setting-${key}`;
          const fileValue = shown(kind, c.config_file[key], lang);
          return (
            <div class="field" key={key}>
              <label for={id}>{t(label)}</label>
              <input
                id={id}
                name={key}
                type="text"
                inputMode={kind.type === 'names' || kind.type === 'size' ? 'text' : 'numeric'}
                value={typed[key] ?? shown(kind, c[key], lang)}
                aria-invalid={problems[key] ? 'true' : undefined}
                aria-describedby={`${id}-hint${problems[key] ? ` ${id}-error` : ''}`}
                onInput={(e) => setTyped({ ...typed, [key]: e.currentTarget.value })}
              />
              <small class="hint" id={`${id}-hint`}>
                {hintOf(t, lang, kind)}
                {c.overridden.includes(key) && (
                  <span class="from-file"> {t('ui_setting_changed_here', { value: fileValue || '—' })}</span>
                )}
              </small>
              {problems[key] && (
                <p class="error" id={`${id}-error`}>
                  {problems[key]}
                </p>
              )}
            </div>
          );
        })}
        {note && (
          <p class={note.ok ? 'ok' : 'error'} role={note.ok ? 'status' : 'alert'}>
            {note.text}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {t('ui_save_settings')}
          </button>
        </div>
      </form>
      <section class="file-only" aria-labelledby="file-only-title">
        <h2 id="file-only-title">{t('ui_settings_file_only')}</h2>
        <p class="hint">{t('ui_settings_file_only_hint')}</p>
        <dl class="facts">
          {Object.entries(c.file_only).flatMap(([k, v]) => [
            <dt key={`${k}-k`}>
              <code>{k}</code>
            </dt>,
            <dd key={`${k}-v`}>{v === null ? '—' : String(v)}</dd>,
          ])}
        </dl>
      </section>
    </>
  );
}

function hintOf(t: Translate, lang: string, kind: Kind): string {
  const range = (min: number, max: number) => ({ min: formatCount(min, lang), max: formatCount(max, lang) });
  if (kind.type === 'int') return t('ui_setting_hint_int', range(kind.min, kind.max));
  if (kind.type === 'days') return t('ui_setting_hint_days', range(kind.min, kind.max));
  if (kind.type === 'size') return t('ui_setting_hint_size');
  return t('ui_setting_hint_names');
}
