import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatBytes } from '../lib/format';
import { errorText } from '../lib/i18n';
import { usePages } from '../lib/use-pages';
import { Pager } from '../components/pager';
import { ActionButton } from '../components/action';
import { SecretDialog } from '../components/secret-dialog';
import { EmailForm } from '../components/email-form';

/** GET /user/@all */
export interface AdminUser {
  id: string;
  emails: string[];
  local: boolean;
  admin: boolean;
  admin_by_config: boolean;
  /** Admin through the identity provider's groups at the last sign-in (not a grant in the database). */
  admin_by_provider: boolean;
  quota: number;
  quota_own: boolean;
  used: number;
}

const MB = 1_000_000;

/**
 * Admin → Users: the accounts (local ones where the instance signs users in itself), with what `ferry user …`
 * and `ferry admin …` do: add, remove, reset a password (shown once), grant or withdraw admin, and a quota
 * of their own.
 */
export function UsersAdmin({ localAccounts, total }: { localAccounts: boolean; total: number | null }) {
  const { t, user } = useApp();
  // A page at a time, in the order of the ids (docs/architecture.md, "Lists and pages").
  const pages = usePages<AdminUser>('/user/@all', (u) => u.id);
  const list = { data: pages.items, error: pages.error, reload: pages.reload };
  const [secret, setSecret] = useState<{ id: string; password: string; created: boolean } | null>(null);
  const users = (list.data ?? []).filter((u) => !localAccounts || u.local);
  return (
    <div>
      {localAccounts && (
        <AddUser
          onAdded={(id, password) => {
            setSecret({ id, password, created: true });
            list.reload();
          }}
        />
      )}
      {list.error !== null && list.error !== undefined && (
        <p class="error" role="alert">
          {errorText(t, list.error)}
        </p>
      )}
      {!list.data && !list.error && <p aria-busy="true">{t('ui_loading')}</p>}
      {list.data && (
        <div class="table-wrap">
          <table class="list users">
            <caption class="visually-hidden">{t('ui_users')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('user_id')}</th>
                <th scope="col">{t('ui_email')}</th>
                <th scope="col">{t('ui_role')}</th>
                <th scope="col">{t('ui_quota')}</th>
                <th scope="col">{t('ui_actions')}</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <UserRow
                  key={u.id}
                  u={u}
                  self={u.id === user?.id}
                  localAccounts={localAccounts}
                  reload={list.reload}
                  onPassword={(password) => setSecret({ id: u.id, password, created: false })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pages={pages} total={total} label={t('ui_users')} />
      {secret && (
        <SecretDialog
          title={t(secret.created ? 'ui_user_created_title' : 'ui_password_reset_title', { id: secret.id })}
          note={t('ui_password_shown_once')}
          secret={secret.password}
          onClose={() => setSecret(null)}
        />
      )}
    </div>
  );
}

function UserRow({
  u,
  self,
  localAccounts,
  reload,
  onPassword,
}: {
  u: AdminUser;
  self: boolean;
  localAccounts: boolean;
  reload(): void;
  onPassword(p: string): void;
}) {
  const { api, t } = useApp();
  const path = `/user/${encodeURIComponent(u.id)}` as const;
  return (
    <tr data-user={u.id}>
      <th scope="row" data-label={t('user_id')}>
        {u.id}
        {self && <span class="hint"> ({t('ui_you')})</span>}
      </th>
      <td data-label={t('ui_email')}>
        {/* A local account's addresses are the admin's to change; others come from the identity provider. */}
        {localAccounts && u.local ? (
          <EmailForm
            userId={u.id}
            emails={u.emails}
            showPlaceholder
            idPrefix={`user-${u.id.replace(/[^A-Za-z0-9_-]/g, '_')}`}
            onSaved={reload}
          />
        ) : (
          u.emails.join(', ')
        )}
      </td>
      <td data-label={t('ui_role')} class="role">
        {u.admin
          ? u.admin_by_config
            ? t('ui_admin_by_config')
            : u.admin_by_provider
              ? t('ui_admin_by_provider')
              : t('ui_admin_role')
          : t('ui_user_role')}
      </td>
      <td data-label={t('ui_quota')}>
        <QuotaCell u={u} reload={reload} />
      </td>
      <td data-label={t('ui_actions')}>
        <div class="users-actions">
          {!self && !u.admin_by_config && !u.admin_by_provider && (
            <ActionButton
              run={() => api.put(`${path}/admin`, { admin: !u.admin })}
              label={t(u.admin ? 'ui_withdraw_admin_of' : 'ui_grant_admin_of', { id: u.id })}
              onDone={reload}
            >
              {u.admin ? t('ui_withdraw_admin') : t('ui_grant_admin')}
            </ActionButton>
          )}
          {localAccounts && u.local && (
            <ActionButton
              run={async () => onPassword((await api.post<{ password: string }>(`${path}/password`, {})).password)}
              confirm={t('ui_reset_password_confirm', { id: u.id })}
              label={t('ui_reset_password_of', { id: u.id })}
            >
              {t('ui_reset_password')}
            </ActionButton>
          )}
          {localAccounts && u.local && !self && (
            <ActionButton
              run={() => api.delete(path)}
              confirm={t('ui_remove_user_confirm', { id: u.id })}
              label={t('ui_remove_user_of', { id: u.id })}
              danger
              onDone={reload}
            >
              {t('ui_remove_user')}
            </ActionButton>
          )}
        </div>
      </td>
    </tr>
  );
}

function QuotaCell({ u, reload }: { u: AdminUser; reload(): void }) {
  const { api, t, lang } = useApp();
  const [value, setValue] = useState(u.quota_own ? String(u.quota / MB) : '');
  const [error, setError] = useState<string | null>(null);
  const id = `quota-${u.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const save = async (quota: number | null) => {
    try {
      await api.put(`/user/${encodeURIComponent(u.id)}/quota`, { quota });
      setError(null);
      reload();
    } catch (e) {
      setError(errorText(t, e));
    }
  };
  return (
    <form
      class="row quota-form"
      onSubmit={(e) => {
        e.preventDefault();
        const n = Number(value);
        if (value.trim() === '' || !Number.isFinite(n) || n < 0) return setError(t('ui_quota_invalid'));
        void save(Math.round(n * MB));
      }}
    >
      <span class="quota-now">
        {u.quota > 0
          ? t('ui_quota_use', { used: formatBytes(u.used, lang), quota: formatBytes(u.quota, lang) })
          : t('ui_quota_none')}
        {!u.quota_own && <span class="hint"> ({t('ui_quota_default')})</span>}
      </span>
      <label for={id} class="visually-hidden">
        {t('ui_quota_of', { id: u.id })}
      </label>
      <input
        id={id}
        type="number"
        min={0}
        step="any"
        inputMode="decimal"
        size={6}
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <span aria-hidden="true">MB</span>
      <button type="submit" aria-label={t('ui_set_quota_of', { id: u.id })}>
        {t('ui_set')}
      </button>
      {u.quota_own && (
        <button
          type="button"
          aria-label={t('ui_default_quota_of', { id: u.id })}
          onClick={() => {
            setValue('');
            void save(null);
          }}
        >
          {t('ui_quota_default_button')}
        </button>
      )}
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

function AddUser({ onAdded }: { onAdded(id: string, password: string): void }) {
  const { api, t } = useApp();
  const [id, setId] = useState('');
  const [email, setEmail] = useState('');
  const [admin, setAdmin] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const r = await api.post<{ id: string; password: string }>('/user', {
        id: id.trim(),
        email: email.trim(),
        admin,
      });
      setError(null);
      setId('');
      setEmail('');
      setAdmin(false);
      onAdded(r.id, r.password);
    } catch (err) {
      setError(errorText(t, err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="add-user" onSubmit={submit} aria-labelledby="add-user-title">
      <h2 id="add-user-title">{t('ui_add_user')}</h2>
      <label for="new-user-id">{t('user_id')}</label>
      <input id="new-user-id" required autocomplete="off" value={id} onInput={(e) => setId(e.currentTarget.value)} />
      <label for="new-user-email">{t('ui_email')}</label>
      <input id="new-user-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      <label class="check">
        <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.currentTarget.checked)} />{' '}
        {t('ui_make_admin')}
      </label>
      <button type="submit" disabled={busy}>
        {t('ui_add_user')}
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
