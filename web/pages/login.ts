import { Api, ApiError } from '../lib/api';
import { errorText, Translate } from '../lib/i18n';

/**
 * The server-rendered login forms (one per password provider), each sent as JSON to POST /login/<provider>
 * so a wrong password shows here without a page change; on success the page asked for is loaded again, now
 * signed in.
 */
export function enhanceLogin(api: Api, t: Translate, base: string): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form.login-form')) enhanceForm(form, api, t, base);
}

function enhanceForm(form: HTMLFormElement, api: Api, t: Translate, base: string): void {
  const provider = form.dataset.provider;
  const errorBox = form.querySelector<HTMLElement>('.error');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
    if (button) button.disabled = true;
    try {
      await api.post(provider ? `/login/${encodeURIComponent(provider)}` : '/login', {
        user_id: String(data.get('user_id') ?? ''),
        password: String(data.get('password') ?? ''),
      });
      const back = String(data.get('return') ?? '');
      location.assign(back.startsWith('/') && !back.startsWith('//') ? back : `${base}/`);
    } catch (e) {
      if (errorBox) {
        errorBox.textContent =
          e instanceof ApiError && e.status === 401
            ? t('ui_login_failed')
            : e instanceof ApiError && e.status === 503
              ? t('ui_login_unavailable')
              : errorText(t, e);
        errorBox.hidden = false;
      }
      if (button) button.disabled = false;
      form.querySelector<HTMLInputElement>('input[name="password"]')?.focus();
    }
  });
}
