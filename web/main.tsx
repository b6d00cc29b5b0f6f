import { render } from 'preact';
import { Api, ApiError } from './lib/api';
import { Ctx, AppContext, GuestContext } from './lib/context';
import { errorText, translator } from './lib/i18n';
import type { InfoJson, UserJson } from '../src/http/presenters/wire';
import { UploadPage } from './pages/upload';
import { TransfersPage } from './pages/transfers';
import { GuestsPage } from './pages/guests';
import { ProfilePage } from './pages/profile';
import { AdminPage } from './pages/admin';
import { enhanceLogin } from './pages/login';
import { enhanceLangSwitch } from './lib/lang-switch';
import { enhanceDownload } from './pages/download';
import { enhanceEncryptedDownload } from './pages/download-encrypted';
import { revealCurrentNav } from './lib/nav';

/**
 * Entry point of app.js: the server-rendered shell names the view in <main data-page>; this mounts it with
 * what every view needs (translations from GET /lang, instance facts from GET /info, the user from GET /user).
 */
const VIEWS: Record<string, () => preact.JSX.Element | null> = {
  upload: UploadPage,
  transfers: TransfersPage,
  guests: GuestsPage,
  profile: ProfilePage,
  admin: AdminPage,
};

function meta(name: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
}

async function boot(): Promise<void> {
  const main = document.getElementById('main');
  if (!main) return;
  const base = meta('ferry-base');
  const lang = document.documentElement.lang || 'en';
  const page = main.dataset.page ?? '';
  revealCurrentNav();
  enhanceDownload(lang); // before anything is fetched: no moment with "Download selected" enabled and nothing ticked
  enhanceEncryptedDownload(base);
  const vid = main.dataset.guest ? new URLSearchParams(location.search).get('vid') : null;
  const api = new Api({ base, securityToken: meta('ferry-security-token') || null, query: vid ? { vid } : {} });
  // Before anything is awaited: a language chosen while the translations load must still apply.
  enhanceLangSwitch(api, Boolean(meta('ferry-security-token')));
  const table = await api
    .get<Record<string, string>>('/lang', { query: { lang } })
    .catch(() => ({}) as Record<string, string>);
  const t = translator(table, lang);
  if (page === 'login') return enhanceLogin(api, t, base);
  const View = VIEWS[page];
  if (!View) return;
  try {
    const info = await api.get<InfoJson>('/info');
    // Without preferences the views still work (no defaults, no suggestions); a lost session reloads below.
    const user = vid
      ? null
      : await api.get<UserJson>('/user').catch((e) => {
          if (e instanceof ApiError && e.status === 401) throw e;
          return null;
        });
    const d = main.dataset;
    const guest: GuestContext | null = vid
      ? {
          vid,
          email: d.guestEmail ?? '',
          options: (d.guestOptions ?? '').split(',').filter(Boolean),
          to: d.guestTo || null,
          from: d.guestFrom || null,
          subject: d.guestSubject || null,
          message: d.guestMessage || null,
          expires: d.guestExpires ? Number(d.guestExpires) : null,
        }
      : null;
    const emails = (main.dataset.emails ?? '').split(',').filter(Boolean);
    const mailKept = d.mailInbox === '1';
    const app: AppContext = { api, t, lang, info, user, base, guest, emails, mailKept };
    main.textContent = '';
    render(
      <Ctx.Provider value={app}>
        <View />
      </Ctx.Provider>,
      main,
    );
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      location.reload(); // the session ended: the server shows the login form
      return;
    }
    const p = document.createElement('p');
    p.className = 'error';
    p.setAttribute('role', 'alert');
    p.textContent = errorText(t, e);
    main.append(p);
  }
}

void boot();
