import { useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatBytes, formatDay } from '../lib/format';
import type { TransferJson } from '../../src/http/presenters/wire';
import type { ResumeRecord } from '../upload/resume-store';
import { CopyButton } from './copy-button';
import { QrButton } from './qr-code';
import { DeliveryState, useDeliveryPolling } from './delivery';

/** After completion: what was uploaded, to whom, the download links, and what became of each recipient's mail. */
export function UploadSummary({
  record,
  transfer: completed,
  onAgain,
}: {
  record: ResumeRecord;
  transfer: TransferJson | null;
  onAgain(): void;
}) {
  const { api, t, lang, base, guest } = useApp();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []); // screen readers hear that it is done
  // The Transfer as completed, then as read again while its mail waits in the queue ("queued", then "sent").
  const [latest, setLatest] = useState<TransferJson | null>(null);
  const transfer = latest ?? completed;
  useDeliveryPolling(transfer?.recipients, () => {
    if (!completed) return;
    api.get<TransferJson>(`/transfer/${completed.id}`).then(setLatest, () => undefined);
  });
  const links = transfer?.recipients?.length
    ? transfer.recipients.map((r) => ({ email: r.email, url: r.download_url, delivery: r.delivery }))
    : record.links.map((l) => ({ ...l, delivery: undefined }));
  const mailed = transfer?.recipients?.filter((r) => r.email) ?? [];
  // No mail transport: the mail went to the built-in inbox only, and every user is told so (not only admins).
  const kept = mailed.length > 0 && mailed.every((r) => r.delivery?.state === 'kept');
  const total = record.files.reduce((n, f) => n + f.size, 0);
  return (
    <section class="card summary" aria-labelledby="summary-title">
      <h1 id="summary-title" tabIndex={-1} ref={heading}>
        {t('ui_upload_done')}
      </h1>
      {/* Never "sent" before the queue has delivered it: the mail server may still refuse or defer it. */}
      {mailed.length > 0 && (
        <p class={`mail-status${kept ? ' delivery-kept' : ''}`} role="status">
          {kept
            ? t('ui_mail_all_kept')
            : mailed.every((r) => r.delivery?.state === 'sent')
              ? t('ui_mail_all_sent')
              : t('ui_mail_queued_summary')}
        </p>
      )}
      {record.encryption && (
        <p class="notice password-reminder" role="note">
          {t('ui_summary_password_reminder')}
        </p>
      )}
      <p>{t('ui_summary_files', { count: record.files.length, size: formatBytes(total, lang) })}</p>
      {transfer?.expires?.raw ? (
        <p>{t('ui_summary_expires', { date: formatDay(transfer.expires.raw, lang) })}</p>
      ) : null}
      <ul class="file-list">
        {record.files.map((f) => (
          <li key={f.fileId}>
            <span class="name">{f.name}</span>
            <span class="size">{formatBytes(f.size, lang)}</span>
          </li>
        ))}
      </ul>
      <h2>{t('ui_download_links')}</h2>
      <ul class="links">
        {links.map((l) => (
          <li key={l.url}>
            <span class="who">{l.email || t('ui_link_anyone')}</span>
            <a class="download-link" href={l.url}>
              {l.url}
            </a>
            <CopyButton text={l.url} />
            <QrButton text={l.url} />
            {l.email && <DeliveryState delivery={l.delivery} />}
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" class="primary" onClick={onAgain}>
          {t('ui_send_more')}
        </button>
        {!guest && <a href={`${base}/?s=transfers`}>{t('my_transfers')}</a>}
      </div>
    </section>
  );
}
