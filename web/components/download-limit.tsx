import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { errorText } from '../lib/i18n';
import type { TransferJson } from '../../src/http/presenters/wire';

/** What GET /transfer/{id} adds for the sharing controls (docs/sharing.md). */
export interface SharingFields {
  download_limit?: number | null;
  password?: boolean;
  download_counts?: { recipient_id: number; file_id: number; downloads: number }[];
}

/** The upload form's download limit: empty for none, else a whole number from 1. */
export function DownloadLimitField({ value, onChange }: { value: string; onChange(v: string): void }) {
  const { t } = useApp();
  return (
    <div class="field">
      <label for="upload-download-limit">{t('ui_download_limit')}</label>
      <input
        id="upload-download-limit"
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        aria-describedby="upload-download-limit-hint"
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <small id="upload-download-limit-hint" class="hint">
        {t('ui_download_limit_hint')}
      </small>
    </div>
  );
}

/** The form's value as POST /transfer takes it: undefined for none. */
export function downloadLimitOf(value: string): number | undefined {
  const n = Number(value.trim());
  return value.trim() !== '' && Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** The owner's view: the limit, each link's completed downloads of each file, and a form to change the limit. */
export function DownloadLimitPanel({
  transfer,
  onChanged,
}: {
  transfer: TransferJson & SharingFields;
  onChanged(): void;
}) {
  const { api, t } = useApp();
  const [value, setValue] = useState(transfer.download_limit == null ? '' : String(transfer.download_limit));
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const counts = transfer.download_counts ?? [];
  const save = async (e: Event) => {
    e.preventDefault();
    const limit = value.trim() === '' ? null : downloadLimitOf(value);
    if (limit === undefined) return setNote({ ok: false, text: t('rest_bad_parameter') });
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
            type="number"
            min={1}
            step={1}
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
