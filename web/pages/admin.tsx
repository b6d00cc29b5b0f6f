import { useState } from 'preact/hooks';
import { UsersAdmin } from './admin-users';
import { UsageOverview } from './admin-usage';
import { PublicAddress } from './admin-address';
import { AdminSettings } from './admin-settings';
import { useApp } from '../lib/context';
import { formatBytes } from '../lib/format';
import { errorText } from '../lib/i18n';
import type { GuestJson, TransferJson } from '../../src/http/presenters/wire';
import { useResource } from '../lib/use-resource';
import { TransferTable } from './transfers';
import { usePages } from '../lib/use-pages';
import { Pager } from '../components/pager';
import { GuestTable } from './guests';

type Tab = 'overview' | 'transfers' | 'guests' | 'users' | 'settings';

/** GET /usage/counts: the overview's figures, counted by the server (the lists are read a page at a time). */
export interface ListCounts {
  transfers: number;
  live_transfers: number;
  held_transfers: number[];
  guests: number;
  users: number;
  local_users: number;
}

/** Administration: everything through the admin endpoints (@all), storage in use, users, the mail sink. */
export function AdminPage() {
  const { api, t, base } = useApp();
  const [tab, setTab] = useState<Tab>('overview');
  const counts = useResource(() => api.get<ListCounts>('/usage/counts'), [tab]);
  const mailSink = document.getElementById('main')?.dataset.mailSink === '1';
  const localAccounts = document.getElementById('main')?.dataset.localAccounts === '1';
  const tabs: [Tab, string][] = [
    ['overview', t('ui_overview')],
    ['transfers', t('ui_all_transfers')],
    ['guests', t('ui_all_guests')],
    ['users', t('ui_users')],
    ['settings', t('ui_settings')],
  ];
  const c = counts.data;
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
      {tab === 'overview' && <Overview counts={c} error={counts.error} localAccounts={localAccounts} />}
      {tab === 'transfers' && <AllTransfers total={c?.transfers ?? null} />}
      {tab === 'guests' && <AllGuests total={c?.guests ?? null} />}
      {tab === 'settings' && <AdminSettings />}
      {tab === 'users' && (
        <>
          <QuotaSettings />
          <UsersAdmin localAccounts={localAccounts} total={c ? (localAccounts ? c.local_users : c.users) : null} />
        </>
      )}
    </section>
  );
}

/** Every transfer, newest first, a page at a time. */
function AllTransfers({ total }: { total: number | null }) {
  const { t } = useApp();
  const pages = usePages<TransferJson>('/transfer/@all', (tr) => tr.id);
  return (
    <>
      <TransferTable transfers={pages.items} error={pages.error} reload={pages.reload} showOwner />
      <Pager pages={pages} total={total} label={t('ui_all_transfers')} />
    </>
  );
}

/** Every open guest, newest first, a page at a time. */
function AllGuests({ total }: { total: number | null }) {
  const { t } = useApp();
  const pages = usePages<GuestJson>('/guest/@all', (g) => g.id);
  return (
    <>
      <GuestTable guests={pages.items} error={pages.error} reload={pages.reload} showOwner />
      <Pager pages={pages} total={total} label={t('ui_all_guests')} />
    </>
  );
}

function Overview({
  counts,
  error,
  localAccounts,
}: {
  counts: ListCounts | null;
  error: unknown;
  localAccounts: boolean;
}) {
  const { t } = useApp();
  if (error)
    return (
      <p class="error" role="alert">
        {errorText(t, error)}
      </p>
    );
  if (!counts) return <p aria-busy="true">{t('ui_loading')}</p>;
  // Held by the virus scan (clamd down): the admins' to-do (docs/sharing.md, Virus scanning).
  const held = counts.held_transfers;
  return (
    <>
      <dl class="facts overview">
        <dt>{t('ui_live_transfers')}</dt>
        <dd>{counts.live_transfers}</dd>
        <dt>{t('ui_all_transfers')}</dt>
        <dd>{counts.transfers}</dd>
        {held.length > 0 && (
          <>
            <dt>{t('ui_virus_held_list')}</dt>
            <dd class="virus-held">{held.map((id) => `#${id}`).join(', ')}</dd>
          </>
        )}
        <dt>{t('ui_all_guests')}</dt>
        <dd>{counts.guests}</dd>
        <dt>{t('ui_users')}</dt>
        <dd>{localAccounts ? counts.local_users : counts.users}</dd>
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
