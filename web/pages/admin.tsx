import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatBytes, formatDate } from '../lib/format';
import { errorText } from '../lib/i18n';
import type { ApiGuest, ApiTransfer, ApiUser } from '../lib/types';
import { useResource } from '../lib/use-resource';
import { TransferTable, transferStatus } from './transfers';
import { GuestTable } from './guests';

type Tab = 'overview' | 'transfers' | 'guests' | 'users';

/** Administration: everything through the admin endpoints (@all), storage in use, users, the mail sink. */
export function AdminPage() {
  const { api, t, base } = useApp();
  const [tab, setTab] = useState<Tab>('overview');
  const transfers = useResource(() => api.get<ApiTransfer[]>('/transfer/@all'));
  const guests = useResource(() => api.get<ApiGuest[]>('/guest/@all'));
  const mailSink = document.getElementById('main')?.dataset.mailSink === '1';
  const tabs: [Tab, string][] = [
    ['overview', t('ui_overview')],
    ['transfers', t('ui_all_transfers')],
    ['guests', t('ui_all_guests')],
    ['users', t('ui_users')],
  ];
  return (
    <section class="card" aria-labelledby="admin-title">
      <h1 id="admin-title">{t('admin')}</h1>
      <nav class="tabs" aria-label={t('admin')}>
        {tabs.map(([id, label]) => (
          <button key={id} type="button" aria-pressed={tab === id} onClick={() => setTab(id)}>
            {label}
          </button>
        ))}
        {mailSink && <a href={`${base}/?s=mail-sink`}>{t('ui_mail_sink')}</a>}
      </nav>
      {tab === 'overview' && <Overview transfers={transfers.data} guests={guests.data} error={transfers.error ?? guests.error} />}
      {tab === 'transfers' && <TransferTable transfers={transfers.data} error={transfers.error} reload={transfers.reload} showOwner />}
      {tab === 'guests' && <GuestTable guests={guests.data} error={guests.error} reload={guests.reload} showOwner />}
      {tab === 'users' && <Users transfers={transfers.data ?? []} guests={guests.data ?? []} />}
    </section>
  );
}

function Overview({ transfers, guests, error }: { transfers: ApiTransfer[] | null; guests: ApiGuest[] | null; error: unknown }) {
  const { t, lang } = useApp();
  if (error) return <p class="error" role="alert">{errorText(t, error)}</p>;
  if (!transfers || !guests) return <p aria-busy="true">{t('ui_loading')}</p>;
  const live = transfers.filter((tr) => !['closed', 'expired'].includes(transferStatus(tr)));
  const stored = live.reduce((n, tr) => n + tr.files.reduce((m, f) => m + (f.received ?? f.size), 0), 0);
  const users = new Set([...transfers.map((tr) => tr.user_id), ...guests.map((g) => g.user_id)]);
  return (
    <dl class="facts overview">
      <dt>{t('ui_storage_used')}</dt>
      <dd class="storage-used">{formatBytes(stored, lang)}</dd>
      <dt>{t('ui_live_transfers')}</dt>
      <dd>{live.length}</dd>
      <dt>{t('ui_all_transfers')}</dt>
      <dd>{transfers.length}</dd>
      <dt>{t('ui_all_guests')}</dt>
      <dd>{guests.length}</dd>
      <dt>{t('ui_users')}</dt>
      <dd>{users.size}</dd>
    </dl>
  );
}

/** Users known from their transfers and guests (the API has no user list); details from GET /user/{id}. */
function Users({ transfers, guests }: { transfers: ApiTransfer[]; guests: ApiGuest[] }) {
  const { api, t, lang } = useApp();
  const [shown, setShown] = useState<ApiUser | null>(null);
  const [error, setError] = useState<unknown>(null);
  const ids = [...new Set([...transfers.map((tr) => tr.user_id), ...guests.map((g) => g.user_id)])].sort();
  if (ids.length === 0) return <p>{t('ui_no_users')}</p>;
  const show = async (id: string) => {
    try {
      setShown(await api.get<ApiUser>(`/user/${encodeURIComponent(id)}`));
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="table-wrap">
      <table class="list users">
        <thead>
          <tr>
            <th scope="col">{t('user_id')}</th>
            <th scope="col">{t('ui_transfer_count')}</th>
            <th scope="col">{t('guests')}</th>
            <th scope="col">{t('size')}</th>
          </tr>
        </thead>
        <tbody>
          {ids.map((id) => {
            const mine = transfers.filter((tr) => tr.user_id === id);
            return (
              <tr key={id}>
                <td data-label={t('user_id')}>
                  <button type="button" class="link" onClick={() => show(id)}>
                    {id}
                  </button>
                </td>
                <td data-label={t('ui_transfer_count')}>{mine.length}</td>
                <td data-label={t('guests')}>{guests.filter((g) => g.user_id === id).length}</td>
                <td data-label={t('size')}>{formatBytes(mine.reduce((n, tr) => n + tr.files.reduce((m, f) => m + f.size, 0), 0), lang)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {error !== null && <p class="error" role="alert">{errorText(t, error)}</p>}
      {shown && (
        <dl class="facts user-facts" aria-live="polite">
          <dt>{t('user_id')}</dt>
          <dd>{shown.id}</dd>
          <dt>{t('ui_language')}</dt>
          <dd>{shown.lang ?? '—'}</dd>
          <dt>{t('created')}</dt>
          <dd>{formatDate(shown.created?.raw, lang)}</dd>
          <dt>{t('ui_last_seen')}</dt>
          <dd>{formatDate(shown.last_activity?.raw, lang)}</dd>
        </dl>
      )}
    </div>
  );
}
