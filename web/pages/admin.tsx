import { useState } from 'preact/hooks';
import { UsersAdmin, type AdminUser } from './admin-users';
import { UsageOverview } from './admin-usage';
import { PublicAddress } from './admin-address';
import { AdminSettings } from './admin-settings';
import { useApp } from '../lib/context';
import { formatBytes } from '../lib/format';
import { errorText } from '../lib/i18n';
import type { GuestJson, TransferJson } from '../../src/http/presenters/wire';
import { useResource } from '../lib/use-resource';
import { TransferTable, transferStatus } from './transfers';
import { GuestTable } from './guests';

type Tab = 'overview' | 'transfers' | 'guests' | 'users' | 'settings';

/** Administration: everything through the admin endpoints (@all), storage in use, users, the mail sink. */
export function AdminPage() {
  const { api, t, base } = useApp();
  const [tab, setTab] = useState<Tab>('overview');
  const transfers = useResource(() => api.get<TransferJson[]>('/transfer/@all'));
  const guests = useResource(() => api.get<GuestJson[]>('/guest/@all'));
  const mailSink = document.getElementById('main')?.dataset.mailSink === '1';
  const localAccounts = document.getElementById('main')?.dataset.localAccounts === '1';
  const tabs: [Tab, string][] = [
    ['overview', t('ui_overview')],
    ['transfers', t('ui_all_transfers')],
    ['guests', t('ui_all_guests')],
    ['users', t('ui_users')],
    ['settings', t('ui_settings')],
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
      {tab === 'overview' && (
        <Overview
          transfers={transfers.data}
          guests={guests.data}
          error={transfers.error ?? guests.error}
          localAccounts={localAccounts}
        />
      )}
      {tab === 'transfers' && (
        <TransferTable transfers={transfers.data} error={transfers.error} reload={transfers.reload} showOwner />
      )}
      {tab === 'guests' && <GuestTable guests={guests.data} error={guests.error} reload={guests.reload} showOwner />}
      {tab === 'settings' && <AdminSettings />}
      {tab === 'users' && (
        <>
          <QuotaSettings />
          <UsersAdmin localAccounts={localAccounts} />
        </>
      )}
    </section>
  );
}

function Overview({
  transfers,
  guests,
  error,
  localAccounts,
}: {
  transfers: TransferJson[] | null;
  guests: GuestJson[] | null;
  error: unknown;
  localAccounts: boolean;
}) {
  const { api, t } = useApp();
  // The users the Users tab lists (every account, not only those who have sent something).
  const accounts = useResource(() => api.get<AdminUser[]>('/user/@all'));
  if (error)
    return (
      <p class="error" role="alert">
        {errorText(t, error)}
      </p>
    );
  if (!transfers || !guests) return <p aria-busy="true">{t('ui_loading')}</p>;
  const live = transfers.filter((tr) => !['closed', 'expired'].includes(transferStatus(tr)));
  const senders = new Set([...transfers.map((tr) => tr.user_id), ...guests.map((g) => g.user_id)]);
  const users = accounts.data ? { size: accounts.data.filter((u) => !localAccounts || u.local).length } : senders;
  // Held by the virus scan (clamd down): the admins' to-do (docs/sharing.md, Virus scanning).
  const held = transfers.filter((tr) => tr.virus_scan?.status === 'held' && tr.status !== 'closed');
  return (
    <>
      <dl class="facts overview">
        <dt>{t('ui_live_transfers')}</dt>
        <dd>{live.length}</dd>
        <dt>{t('ui_all_transfers')}</dt>
        <dd>{transfers.length}</dd>
        {held.length > 0 && (
          <>
            <dt>{t('ui_virus_held_list')}</dt>
            <dd class="virus-held">{held.map((tr) => `#${tr.id}`).join(', ')}</dd>
          </>
        )}
        <dt>{t('ui_all_guests')}</dt>
        <dd>{guests.length}</dd>
        <dt>{t('ui_users')}</dt>
        <dd>{users.size}</dd>
      </dl>
      <PublicAddress />
      <UsageOverview />
    </>
  );
}

/** The instance's quotas (config user_quota and host_quota), changed at run time through PUT /config. */
function QuotaSettings() {
  const { api, t, lang } = useApp();
  const cfg = useResource(() => api.get<{ user_quota: number; host_quota: number }>('/config'));
  const [userMb, setUserMb] = useState<string | null>(null);
  const [hostMb, setHostMb] = useState<string | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  if (!cfg.data)
    return cfg.error ? (
      <p class="error" role="alert">
        {errorText(t, cfg.error)}
      </p>
    ) : null;
  const mb = (v: number) => String(v / 1_000_000);
  const save = async (e: Event) => {
    e.preventDefault();
    const user = Number(userMb ?? mb(cfg.data!.user_quota));
    const host = Number(hostMb ?? mb(cfg.data!.host_quota));
    if (!(user >= 0 && host >= 0)) return setNote({ ok: false, text: t('ui_quota_invalid') });
    try {
      await api.put('/config', { user_quota: Math.round(user * 1_000_000), host_quota: Math.round(host * 1_000_000) });
      setNote({ ok: true, text: t('ui_saved') });
      cfg.reload();
    } catch (err) {
      setNote({ ok: false, text: errorText(t, err) });
    }
  };
  return (
    <form class="quota-settings" onSubmit={save} aria-labelledby="quota-settings-title">
      <h2 id="quota-settings-title">{t('ui_quotas')}</h2>
      <p class="hint">{t('ui_quotas_hint')}</p>
      <div class="row">
        <label for="user-quota">{t('ui_user_quota_mb')}</label>
        <input
          id="user-quota"
          type="number"
          min={0}
          step="any"
          value={userMb ?? mb(cfg.data.user_quota)}
          onInput={(e) => setUserMb(e.currentTarget.value)}
        />
        <span class="hint">
          {cfg.data.user_quota > 0 ? formatBytes(cfg.data.user_quota, lang) : t('ui_quota_none')}
        </span>
      </div>
      <div class="row">
        <label for="host-quota">{t('ui_host_quota_mb')}</label>
        <input
          id="host-quota"
          type="number"
          min={0}
          step="any"
          value={hostMb ?? mb(cfg.data.host_quota)}
          onInput={(e) => setHostMb(e.currentTarget.value)}
        />
        <span class="hint">
          {cfg.data.host_quota > 0 ? formatBytes(cfg.data.host_quota, lang) : t('ui_quota_none')}
        </span>
      </div>
      <button type="submit">{t('ui_save_quotas')}</button>
      {note && (
        <span class={note.ok ? 'ok' : 'error'} role={note.ok ? 'status' : 'alert'}>
          {note.text}
        </span>
      )}
    </form>
  );
}
