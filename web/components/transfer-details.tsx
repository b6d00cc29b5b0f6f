import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatBytes, formatDate, formatDay, formatMoment } from '../lib/format';
import { errorText, Translate } from '../lib/i18n';
import type { AuditEntryJson, TransferJson } from '../../src/http/presenters/wire';
import { useResource } from '../lib/use-resource';
import { ActionButton } from './action';
import { DeliveryState, undelivered, useDeliveryPolling } from './delivery';
import { AuditLog, countDownloads } from './audit-log';
import { isEmail } from '../../src/domain/transfer-input';
import { DownloadLimitPanel, hasDownloaded } from './download-limit';
import { QrButton } from './qr-code';
import { VirusScanNote } from './virus-scan';

/** One Transfer: files, recipients and their activity, the audit log, and what the owner may change. */
export function TransferDetails({ id, onChanged }: { id: number; onChanged(): void }) {
  const { api, t, lang, info, mailKept } = useApp();
  const tr = useResource(() => api.get<TransferJson>(`/transfer/${id}`));
  const log = useResource(() => api.get<AuditEntryJson[]>(`/transfer/${id}/auditlog`));
  const [newRecipient, setNewRecipient] = useState('');
  const [addError, setAddError] = useState<string | null>(null);
  const changed = () => {
    tr.reload();
    log.reload();
    onChanged();
  };
  useDeliveryPolling(tr.data?.recipients, tr.reload);
  if (tr.error)
    return (
      <p class="error" role="alert">
        {errorText(t, tr.error)}
      </p>
    );
  const x = tr.data;
  if (!x) return <p aria-busy="true">{t('ui_loading')}</p>;
  const closed = x.status === 'closed';
  // A link-only transfer mails nobody: no reminders, and an added address would never be told.
  const linkOnly = x.options.includes('get_a_link') || !x.recipients.some((r) => r.email);
  const reminded = mailKept ? t('ui_reminder_kept') : t('ui_reminder_sent');
  const downloads = countDownloads(log.data);
  const extensionsLeft = x.expiry_date_extension ?? 0;

  const add = async (e: Event) => {
    e.preventDefault();
    if (!isEmail(newRecipient.trim())) return setAddError(t('ui_bad_email', { email: newRecipient }));
    try {
      await api.post(`/transfer/${id}/recipient`, { recipient: newRecipient.trim() });
      setNewRecipient('');
      setAddError(null);
      changed();
    } catch (err) {
      setAddError(errorText(t, err));
    }
  };

  return (
    <div class="details">
      <VirusScanNote transfer={x} />
      {x.message && <p class="message">{x.message}</p>}
      <h2>{t('files')}</h2>
      <ul class="file-list">
        {x.files.map((f) => (
          <li key={f.id}>
            <span class="name">{f.name}</span>
            <span class="size">{formatBytes(f.size, lang)}</span>
            {!closed && (
              <ActionButton
                run={() => api.delete(`/file/${f.id}`)}
                danger
                confirm={t('ui_delete_file_confirm', { name: f.name })}
                label={t('ui_delete_named', { name: f.name })}
                onDone={changed}
              >
                {t('ui_delete')}
              </ActionButton>
            )}
          </li>
        ))}
      </ul>
      <h2>{t('recipients')}</h2>
      <ul class="recipient-list">
        {x.recipients.map((r) => (
          <li key={r.id}>
            <span class="name">{r.email || t('ui_link_anyone')}</span>
            {/* A closed transfer's links lead nowhere: none is shown. */}
            {!closed && (
              <>
                <a
                  href={r.download_url}
                  class="sub"
                  aria-label={t('ui_download_link_of', { name: r.email || t('ui_link_anyone') })}
                >
                  {t('ui_download_link')}
                </a>
                <QrButton text={r.download_url} label={t('ui_qr_of', { url: r.email || t('ui_link_anyone') })} />
              </>
            )}
            <span class="sub activity">
              {!r.last_activity
                ? t('ui_no_activity')
                : hasDownloaded(x, r.id)
                  ? t('ui_recipient_downloaded', { date: formatDate(r.last_activity.raw, lang) })
                  : t('ui_recipient_opened', { date: formatDate(r.last_activity.raw, lang) })}
            </span>
            <DeliveryState delivery={r.delivery} />
            {/* Bounces are the delivery state's reason; the list is for a recipient whose mail left the queue. */}
            {!r.delivery &&
              r.errors.map((e, i) => (
                <span key={i} class="error">
                  {e.type}: {e.details}
                </span>
              ))}
            {!closed && r.email && (
              <>
                {/* One button: PUT remind sends a deferred or bounced mail again, else a reminder (README, Mail). */}
                <ActionButton
                  run={() => api.put(`/recipient/${r.id}`, { remind: true })}
                  label={
                    undelivered(r.delivery)
                      ? t('ui_send_again_named', { name: r.email })
                      : t('ui_remind_named', { name: r.email })
                  }
                  done={undelivered(r.delivery) ? t('ui_sent_again') : reminded}
                  onDone={changed}
                >
                  {undelivered(r.delivery) ? t('ui_send_again') : t('ui_remind')}
                </ActionButton>
                <ActionButton
                  run={() => api.delete(`/recipient/${r.id}`)}
                  danger
                  confirm={t('ui_remove_recipient_confirm', { email: r.email })}
                  label={t('ui_remove_named', { name: r.email })}
                  onDone={changed}
                >
                  {t('ui_remove')}
                </ActionButton>
              </>
            )}
          </li>
        ))}
      </ul>
      {!closed && !linkOnly && (
        <form class="row add-recipient" onSubmit={add} noValidate>
          <label for={`add-recipient-${id}`}>{t('ui_add_recipient')}</label>
          <input
            id={`add-recipient-${id}`}
            type="email"
            value={newRecipient}
            onInput={(e) => setNewRecipient(e.currentTarget.value)}
          />
          <button type="submit">{t('ui_add')}</button>
          {addError && (
            <span class="error" role="alert">
              {addError}
            </span>
          )}
        </form>
      )}
      {!closed && (
        <div class="actions">
          {!linkOnly && (
            <ActionButton run={() => api.put(`/transfer/${id}`, { remind: true })} done={reminded}>
              {t('ui_remind_all')}
            </ActionButton>
          )}
          {extensionsLeft > 0 ? (
            <>
              <ActionButton
                run={() => api.put<TransferJson>(`/transfer/${id}`, { extend_expiry_date: true })}
                confirm={extendQuestion(t, lang, x, info.allow_transfer_expiry_date_extension)}
                done={(after) =>
                  t('ui_expiry_extended', { date: formatDay((after as TransferJson).expires.raw, lang) })
                }
                onDone={changed}
              >
                {t('ui_extend_expiry')}
              </ActionButton>
              <span class="sub extensions-left">{t('ui_extensions_left', { count: extensionsLeft })}</span>
            </>
          ) : (
            <span class="sub extensions-left">{t('ui_extensions_none')}</span>
          )}
          <ActionButton
            run={() => api.put(`/transfer/${id}`, { closed: true })}
            danger
            confirm={t('ui_close_confirm')}
            onDone={changed}
          >
            {t('ui_close_transfer')}
          </ActionButton>
        </div>
      )}
      <p class="sub when">
        {closed
          ? t('ui_closed_on', { date: formatDay(x.closed?.raw ?? x.expires.raw, lang) })
          : `${t('expires')}: ${formatMoment(x.expires.raw, lang)}`}{' '}
        · {t('ui_downloads_count', { count: downloads })}
      </p>
      <DownloadLimitPanel transfer={x} onChanged={changed} />
      <h2>{t('ui_audit_log')}</h2>
      <AuditLog entries={log.data} error={log.error} />
      <ActionButton run={() => api.get(`/transfer/${id}/auditlog/mail`)} done={t('ui_auditlog_mailed')}>
        {t('ui_auditlog_mail')}
      </ActionButton>
    </div>
  );
}

/** "Extend the expiry by 7 days, to 19 Dec 2026? After this, 1 more extension is possible." */
function extendQuestion(t: Translate, lang: string, x: TransferJson, steps: number[] | undefined): string {
  const left = x.expiry_date_extension ?? 0;
  const days = steps?.[steps.length - left];
  if (!days) return t('ui_extend_confirm_unknown');
  const until = Math.max(x.expires.raw, Math.floor(Date.now() / 1000)) + days * 86400;
  const after = left - 1 > 0 ? t('ui_extensions_after', { count: left - 1 }) : t('ui_extensions_none_after');
  return `${t('ui_extend_confirm', { count: days, date: formatDay(until, lang) })} ${after}`;
}
