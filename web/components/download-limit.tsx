import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { errorText, type Translate } from '../lib/i18n';
import { formatCount } from '../lib/format';
import { DOWNLOAD_LIMIT_MAX } from '../../src/domain/download-limits';
import type { TransferJson } from '../../src/http/presenters/wire';

/** What GET /transfer/{id} adds for the sharing controls (docs/sharing.md). */
export interface SharingFields {
  download_limit?: number | null;
  password?: boolean;
  download_counts?: { recipient_id: number; file_id: number; downloads: number }[];
}

/**
 * Whether a recipient has downloaded: every byte of at least one file went out through their link (the
 * server's count of completed downloads, `download_counts`). Opening the page is not downloading
 * (docs/web-pages.md, "What the lists count").
 */
export function hasDownloaded(tr: TransferJson & SharingFields, recipientId: number): boolean {
  return (tr.download_counts ?? []).some((c) => c.recipient_id === recipientId && c.downloads > 0);
}

/**
 * The upload form's download limit: empty for none, else a whole number from 1 to DOWNLOAD_LIMIT_MAX. A text
 * field (numeric keyboard), not type=number: a number field hands the page "" for "abc" or "1e", which would
 * pass for "no limit"; this way the form sees what was typed and refuses it in words (downloadLimitProblem).
 */
export function DownloadLimitField({
  value,
  onChange,
  invalid,
}: {
  value: string;
  onChange(v: string): void;
  invalid?: boolean;
}) {
  const { t, lang } = useApp();
  return (
    <div class="field">
      <label for="upload-download-limit">{t('ui_download_limit')}</label>
      <input
        id="upload-download-limit"
        type="text"
        inputMode="numeric"
        autocomplete="off"
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby="upload-download-limit-hint"
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <small id="upload-download-limit-hint" class="hint">
        {t('ui_download_limit_hint')} {t('ui_download_limit_range', { max: formatCount(DOWNLOAD_LIMIT_MAX, lang) })}
      </small>
    </div>
  );
}

/** The form's value as POST /transfer takes it: null for none (empty), undefined for what no limit can be. */
export function downloadLimitOf(value: string): number | null | undefined {
  const v = value.trim();
  if (v === '') return null;
  if (!/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return n >= 1 && n <= DOWNLOAD_LIMIT_MAX ? n : undefined;
}

/** What the form says of a limit it cannot send ("a whole number from 1 to 1,000,000"), or null. */
export function downloadLimitProblem(t: Translate, lang: string, value: string): string | null {
  return downloadLimitOf(value) === undefined
    ? t('ui_download_limit_invalid', { value: value.trim(), max: formatCount(DOWNLOAD_LIMIT_MAX, lang) })
    : null;
}

/** The owner's view: the limit, each link's completed downloads of each file, and a form to change the limit. */
export function DownloadLimitPanel({
  transfer,
  onChanged,
}: {
  transfer: TransferJson & SharingFields;
  onChanged(): void;
}) {
  const { api, t, lang } = useApp();
  const [value, setValue] = useState(transfer.download_limit == null ? '' : String(transfer.download_limit));
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const counts = transfer.download_counts ?? [];
  const save = async (e: Event) => {
    e.preventDefault();
    const limit = downloadLimitOf(value);
    if (limit === undefined) return setNote({ ok: false, text: downloadLimitProblem(t, lang, value) ?? '' });
    try {
      await api.put(`/transfer/${transfer.id}`, { download_limit: limit });
      setNote({ ok: true, text: t('ui_download_limit_saved', { limit: limit ?? t('ui_download_limit_none') }) });
      onChanged();
    } catch (err) {
      setNote({ ok: false, text: errorText(t, err) });
    }
  };
  const who = (id: number) => transfer.recipients.find((r) => r.id === id)?.email || t('ui_link_anyone');
  const what = (id: number) => transfer.files.find((f) => f.id === id)?.name ?? String(id);
  return (
    <section class="download-limit">
      <h2>{t('ui_download_counts')}</h2>
      {transfer.password && <p class="sub link-password-set">{t('ui_link_password_set')}</p>}
      {counts.length > 0 && (
        <ul class="download-counts">
          {counts.map((c) => (
            <li key={`${c.recipient_id}-${c.file_id}`}>
              {who(c.recipient_id)} · {what(c.file_id)}: {c.downloads}
              {transfer.download_limit != null ? ` / ${transfer.download_limit}` : ''}
            </li>
          ))}
        </ul>
      )}
      {transfer.status !== 'closed' && (
        <form class="inline" onSubmit={save}>
          <label for={`download-limit-${transfer.id}`}>{t('ui_download_limit')}</label>
          <input
            id={`download-limit-${transfer.id}`}
            type="text"
            inputMode="numeric"
            value={value}
            placeholder={t('ui_download_limit_none')}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
          <button type="submit">{t('ui_download_limit_raise')}</button>
          {note && (
            <span class={note.ok ? 'ok' : 'error'} role={note.ok ? 'status' : 'alert'}>
              {note.text}
            </span>
          )}
        </form>
      )}
    </section>
  );
}
