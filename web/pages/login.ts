import { Api, ApiError } from '../lib/api';
import { errorText, Translate } from '../lib/i18n';

/**
 * The server-rendered login form, sent as JSON to POST /login so a wrong password shows here without a page
 * change; on success the page asked for is loaded again, now signed in.
 */
export function enhanceLogin(api: Api, t: Translate, base: string): void {
  const form = document.querySelector<HTMLFormElement>('form.login-form');
  if (!form) return;
  const errorBox = form.querySelector<HTMLElement>('.error');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
    if (button) button.disabled = true;
    try {
      await api.post('/login', { user_id: String(data.get('user_id') ?? ''), password: String(data.get('password') ?? '') });
      const back = String(data.get('return') ?? '');
      location.assign(back.startsWith('/') && !back.startsWith('//') ? back : `${base}/`);
    } catch (e) {
      if (errorBox) {
        errorBox.textContent = e instanceof ApiError && e.status === 401 ? t('ui_login_failed') : errorText(t, e);
        errorBox.hidden = false;
      }
      if (button) button.disabled = false;
      form.querySelector<HTMLInputElement>('input[name="password"]')?.focus();
    }
  });
}
