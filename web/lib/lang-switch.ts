import type { Api } from './api';

/**
 * The header's language form works as a plain GET (the server remembers the choice in a cookie). With the
 * script, choosing a language applies at once, and a signed-in user's preference is stored (PUT /user) so
 * that mail and later sessions follow it too.
 */
export function enhanceLangSwitch(api: Api, signedIn: boolean): void {
  const form = document.querySelector<HTMLFormElement>('form.lang');
  const select = form?.querySelector<HTMLSelectElement>('select[name="lang"]');
  if (!form || !select) return;
  // Choosing applies at once, so the button is not needed: hidden, not merely made tiny, so that it takes no
  // keyboard focus.
  const button = form.querySelector('button');
  if (button) button.hidden = true;
  select.addEventListener('change', async () => {
    if (signedIn) await api.put('/user', { lang: select.value }).catch(() => undefined);
    form.submit();
  });
}
