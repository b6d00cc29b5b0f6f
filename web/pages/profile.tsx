import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatDate } from '../lib/format';
import { errorText } from '../lib/i18n';
import type { ApiUser } from '../lib/types';
import { ActionButton } from '../components/action';
import { CopyButton } from '../components/copy-button';
import { concurrency, CONCURRENCY_KEY } from '../upload/use-upload';

const LANGS: [string, string][] = [
  ['en', 'English'],
  ['fr', 'Français'],
  ['de', 'Deutsch'],
  ['nl', 'Nederlands'],
];

/**
 * Profile: language, API access (remote_config, FileSender's filesender.py.ini, secret rotation) and this
 * browser's upload setting.
 */
export function ProfilePage() {
  const { api, t, user, lang, base } = useApp();
  const [me, setMe] = useState<ApiUser | null>(user);
  const [chosenLang, setChosenLang] = useState(me?.lang ?? lang);
  const [parallel, setParallel] = useState(String(concurrency()));
  const [note, setNote] = useState<string | null>(null);
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
        </dl>
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
      <section class="card" aria-labelledby="api-title">
        <h2 id="api-title">{t('ui_api_access')}</h2>
        {me.remote_config ? (
          <>
            <p class="hint">{t('ui_remote_config_hint')}</p>
            <div class="row">
              <label for="remote-config" class="visually-hidden">
                {t('ui_remote_config')}
              </label>
              <input id="remote-config" class="mono" readOnly value={me.remote_config} onFocus={(e) => e.currentTarget.select()} />
              <CopyButton text={me.remote_config} label={t('ui_copy_remote_config')} />
            </div>
            <p class="hint">{t('ui_filesender_ini_hint')}</p>
            <p>
              <a class="button" href={`${base}/user/@me/filesender-python-client-configuration-file`} download="filesender.py.ini">
                {t('ui_filesender_ini')}
              </a>
            </p>
            <ActionButton
              run={async () => {
                await api.put('/user', { secret_rotate: true });
                setMe(await api.get<ApiUser>('/user'));
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
