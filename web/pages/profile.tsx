import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatDate } from '../lib/format';
import { errorText } from '../lib/i18n';
import type { UserJson } from '../../src/http/presenters/wire';
import { ActionButton } from '../components/action';
import { CopyButton } from '../components/copy-button';
import { concurrency, CONCURRENCY_KEY } from '../upload/use-upload';
import { QuotaUse } from '../components/quota-use';
import { EmailForm } from '../components/email-form';

import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../src/domain/password-rules';
import { LANGUAGE_NAMES } from '../../src/i18n/languages';

/** One's own password (local accounts): the current one, the new one twice; other sessions are signed out. */
function PasswordChange({ onChanged }: { onChanged: () => void }) {
  const { api, t } = useApp();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (next.length < MIN_PASSWORD)
      return setNote({ ok: false, text: t('ui_password_too_short', { count: MIN_PASSWORD }) });
    if (next !== again) return setNote({ ok: false, text: t('ui_password_mismatch') });
    setBusy(true);
    try {
      await api.put('/user/@me/password', { current_password: current, password: next });
      setCurrent('');
      setNext('');
      setAgain('');
      setNote({ ok: true, text: t('ui_password_changed') });
      onChanged(); // the API secret was replaced with the password: show the new one
    } catch (err) {
      setNote({ ok: false, text: errorText(t, err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">{t('ui_change_password')}</h2>
      <form class="password-change" onSubmit={submit}>
        <label for="pw-current">{t('ui_current_password')}</label>
        <input
          id="pw-current"
          type="password"
          autocomplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
        <label for="pw-new">{t('ui_new_password')}</label>
        <input
          id="pw-new"
          type="password"
          autocomplete="new-password"
          required
          minLength={MIN_PASSWORD}
          aria-describedby="pw-rule"
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
        <span id="pw-rule" class="hint">
          {t('ui_password_rule', { count: MIN_PASSWORD })} {t('ui_password_changes_secret')}
        </span>
        <label for="pw-again">{t('ui_new_password_again')}</label>
        <input
          id="pw-again"
          type="password"
          autocomplete="new-password"
          required
          value={again}
          onInput={(e) => setAgain(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {t('ui_change_password')}
        </button>
        {note && (
          <p class={note.ok ? 'ok' : 'error'} role={note.ok ? 'status' : 'alert'}>
            {note.text}
          </p>
        )}
      </form>
    </section>
  );
}

/** Every shipped language, named in itself (the list without the tables, which the page gets from GET /lang). */
const LANGS = LANGUAGE_NAMES;

/**
 * Profile: language, API access (remote_config, FileSender's filesender.py.ini, secret rotation) and this
 * browser's upload setting.
 */
export function ProfilePage() {
  const { api, t, user, lang, base } = useApp();
  const [me, setMe] = useState<UserJson | null>(user);
  const [chosenLang, setChosenLang] = useState(me?.lang ?? lang);
  const [parallel, setParallel] = useState(String(concurrency()));
  const [note, setNote] = useState<string | null>(null);
  const localAccount = document.getElementById('main')?.dataset.localAccount === '1';
  if (!me)
    return (
      <section class="card" aria-labelledby="profile-title">
        <h1 id="profile-title">{t('ui_profile')}</h1>
        <p class="error" role="alert">
          {t('ui_profile_unavailable')}
        </p>
      </section>
    );

  const saveLang = async (e: Event) => {
    e.preventDefault();
    try {
      await api.put('/user', { lang: chosenLang });
      const u = new URL(location.href);
      u.searchParams.set('lang', chosenLang);
      location.assign(u.toString());
    } catch (err) {
      setNote(errorText(t, err));
    }
  };

  return (
    <>
      <section class="card" aria-labelledby="profile-title">
        <h1 id="profile-title">{t('ui_profile')}</h1>
        <dl class="facts">
          <dt>{t('user_id')}</dt>
          <dd>{me.id}</dd>
          <dt>{t('created')}</dt>
          <dd>{formatDate(me.created?.raw, lang)}</dd>
          {!localAccount && (
            <>
              <dt>{t('ui_email')}</dt>
              <dd>{(me.email ?? []).join(', ')}</dd>
            </>
          )}
        </dl>
        {/* A local account's addresses are its own to set; an identity provider's come with each sign-in. */}
        {localAccount && <EmailForm emails={me.email ?? []} idPrefix="profile" onSaved={() => location.reload()} />}
        <QuotaUse always />
        <form class="row" onSubmit={saveLang}>
          <label for="profile-lang">{t('ui_language')}</label>
          <select id="profile-lang" value={chosenLang} onChange={(e) => setChosenLang(e.currentTarget.value)}>
            {LANGS.map(([code, name]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
          <button type="submit">{t('ui_save')}</button>
        </form>
        {note && (
          <p class="error" role="alert">
            {note}
          </p>
        )}
      </section>
      {localAccount && <PasswordChange onChanged={() => void api.get<UserJson>('/user').then(setMe, () => {})} />}
      <section class="card" aria-labelledby="api-title">
        <h2 id="api-title">{t('ui_api_access')}</h2>
        {me.remote_config ? (
          <>
            <p class="hint">{t('ui_remote_config_hint')}</p>
            <div class="row">
              <label for="remote-config" class="visually-hidden">
                {t('ui_remote_config')}
              </label>
              <input
                id="remote-config"
                class="mono"
                readOnly
                value={me.remote_config}
                onFocus={(e) => e.currentTarget.select()}
              />
              <CopyButton text={me.remote_config} label={t('ui_copy_remote_config')} />
            </div>
            <p class="hint">{t('ui_filesender_ini_hint')}</p>
            <p>
              <a
                class="button"
                href={`${base}/user/@me/filesender-python-client-configuration-file`}
                download="filesender.py.ini"
              >
                {t('ui_filesender_ini')}
              </a>
            </p>
            <ActionButton
              run={async () => {
                await api.put('/user', { secret_rotate: true });
                setMe(await api.get<UserJson>('/user'));
              }}
              confirm={t('ui_rotate_confirm')}
              done={t('ui_rotated')}
            >
              {t('ui_rotate_secret')}
            </ActionButton>
          </>
        ) : (
          <p>{t('ui_remote_disabled')}</p>
        )}
      </section>
      <section class="card" aria-labelledby="browser-title">
        <h2 id="browser-title">{t('ui_this_browser')}</h2>
        <div class="row">
          <label for="profile-parallel">{t('ui_parallel_uploads')}</label>
          <input
            id="profile-parallel"
            type="number"
            min={1}
            max={16}
            value={parallel}
            onInput={(e) => {
              const v = e.currentTarget.value;
              setParallel(v);
              const n = Number(v);
              if (Number.isInteger(n) && n >= 1 && n <= 16) localStorage.setItem(CONCURRENCY_KEY, String(n));
            }}
          />
        </div>
        <p class="hint">{t('ui_parallel_hint')}</p>
      </section>
    </>
  );
}
