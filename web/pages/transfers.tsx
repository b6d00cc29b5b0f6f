import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatBytes, formatDay, formatMoment } from '../lib/format';
import { errorText } from '../lib/i18n';
import type { TransferJson } from '../../src/http/presenters/wire';
import { usePages } from '../lib/use-pages';
import { Pager } from '../components/pager';
import { TransferDetails } from '../components/transfer-details';
import { undelivered } from '../components/delivery';
import { virusStatus } from '../components/virus-scan';
import type { TransferStatus } from '../../src/domain/model';
import { hasDownloaded } from '../components/download-limit';

/**
 * "My transfers": the user's Transfers (GET /transfer), newest first, a page at a time (a sender with ten
 * thousand transfers gets fifty rows, not the whole list: docs/architecture.md, "Lists and pages"), with
 * details on demand.
 */
export function TransfersPage() {
  const { t } = useApp();
  const pages = usePages<TransferJson>('/transfer', (tr) => tr.id);
  return (
    <section class="card" aria-labelledby="transfers-title">
      <h1 id="transfers-title">{t('my_transfers')}</h1>
      <TransferTable transfers={pages.items} error={pages.error} reload={pages.reload} />
      <Pager pages={pages} label={t('my_transfers')} />
    </section>
  );
}

/** What the status column shows of a transfer: its text is `status_<this>`. */
export type ShownStatus = TransferStatus | 'expired' | NonNullable<ReturnType<typeof virusStatus>>;
const STATUSES: readonly string[] = [
  'created',
  'started',
  'uploading',
  'available',
  'closed',
] satisfies TransferStatus[];

export function transferStatus(tr: TransferJson): ShownStatus {
  if (tr.status === 'closed') return 'closed';
  if (tr.expires.raw < Date.now() / 1000) return 'expired';
  return virusStatus(tr) ?? (tr.status && STATUSES.includes(tr.status) ? (tr.status as TransferStatus) : 'available');
}

/** Shared with the admin page (all transfers). */
export function TransferTable({
  transfers,
  error,
  reload,
  showOwner,
}: {
  transfers: TransferJson[] | null;
  error: unknown;
  reload(): void;
  showOwner?: boolean;
}) {
  const { t, lang } = useApp();
  const [open, setOpen] = useState<number | null>(null);
  if (error)
    return (
      <p class="error" role="alert">
        {errorText(t, error)}
      </p>
    );
  if (!transfers) return <p aria-busy="true">{t('ui_loading')}</p>;
  if (transfers.length === 0) return <p>{t('ui_no_transfers')}</p>;
  const sorted = [...transfers].sort((a, b) => b.created.raw - a.created.raw);
  return (
    <div class="table-wrap">
      <table class="list transfers">
        <thead>
          <tr>
            <th scope="col">{t('created')}</th>
            {showOwner && <th scope="col">{t('from')}</th>}
            <th scope="col">{t('subject')}</th>
            <th scope="col">{t('size')}</th>
            <th scope="col">{t('recipients')}</th>
            <th scope="col">{t('expires')}</th>
            <th scope="col">{t('status')}</th>
            <th scope="col">
              <span class="visually-hidden">{t('ui_details')}</span>
            </th>
          </tr>
        </thead>
        {sorted.map((tr) => {
          const size = tr.files.reduce((n, f) => n + f.size, 0);
          const downloaded = tr.recipients.filter((r) => hasDownloaded(tr, r.id)).length;
          const opened = tr.recipients.filter((r) => r.last_activity && !hasDownloaded(tr, r.id)).length;
          const notReached = tr.recipients.filter((r) => undelivered(r.delivery)).length;
          const status = transferStatus(tr);
          return (
            <tbody key={tr.id}>
              <tr class={`status-${status}`}>
                <td class="nowrap" data-label={t('created')}>
                  {formatDay(tr.created.raw, lang)}
                </td>
                {showOwner && <td data-label={t('from')}>{tr.user_email}</td>}
                <td data-label={t('subject')}>
                  {tr.subject || t('ui_n_files', { count: tr.files.length })}
                  <span class="sub">{tr.files.map((f) => f.name).join(', ')}</span>
                  {/* A guest's upload lands in the inviter's list: say whose it is (user_email is the guest's). */}
                  {tr.guest_id ? (
                    <span class="sub sent-by-guest">{t('ui_sent_by_guest', { email: tr.user_email })}</span>
                  ) : null}
                </td>
                <td class="nowrap" data-label={t('size')}>
                  {formatBytes(size, lang)}
                </td>
                <td data-label={t('recipients')}>
                  {tr.recipients.map((r) => r.email || t('ui_link_anyone')).join(', ')}
                  <span class="sub downloaded-by">
                    {t('ui_downloaded_by', { n: downloaded, total: tr.recipients.length })}
                  </span>
                  {opened > 0 && <span class="sub opened-only">{t('ui_opened_only', { n: opened })}</span>}
                  {notReached > 0 && (
                    <span class="sub delivery-bounced">{t('ui_mail_not_reached', { count: notReached })}</span>
                  )}
                </td>
                <td class="nowrap" data-label={t('expires')}>
                  {tr.status === 'closed' ? (
                    '–'
                  ) : (
                    <time
                      dateTime={new Date(tr.expires.raw * 1000).toISOString()}
                      title={formatMoment(tr.expires.raw, lang)}
                    >
                      {formatDay(tr.expires.raw, lang)}
                    </time>
                  )}
                </td>
                <td class="nowrap" data-label={t('status')}>
                  {t(`status_${status}`)}
                </td>
                <td class="row-actions">
                  <button
                    type="button"
                    aria-expanded={open === tr.id}
                    aria-controls={`details-${tr.id}`}
                    onClick={() => setOpen(open === tr.id ? null : tr.id)}
                  >
                    {t('ui_details')}
                  </button>
                </td>
              </tr>
              {open === tr.id && (
                <tr class="details-row">
                  <td colSpan={showOwner ? 8 : 7} id={`details-${tr.id}`}>
                    <TransferDetails id={tr.id} onChanged={reload} />
                  </td>
                </tr>
              )}
            </tbody>
          );
        })}
      </table>
    </div>
  );
}
