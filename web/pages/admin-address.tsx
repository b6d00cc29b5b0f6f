import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { errorText } from '../lib/i18n';
import { useResource } from '../lib/use-resource';

/**
 * The public address links are built from (config base_url, changed at run time through PUT /config): what
 * people type to reach this service. Without it, a server listening on every address mails links that name
 * localhost. Empty: back to the config's address, or the one listened on.
 */
export function PublicAddress() {
  const { api, t } = useApp();
  const cfg = useResource(() => api.get<{ base_url: string; overridden?: string[] }>('/config'));
  const [value, setValue] = useState<string | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  if (!cfg.data)
    return cfg.error ? (
      <p class="error" role="alert">
        {errorText(t, cfg.error)}
      </p>
    ) : null;
  // The field holds the address set here, if any: empty means the config's (or the one listened on), as its
  // hint says; the address in use is said beside it.
  const own = cfg.data.overridden?.includes('base_url') ? cfg.data.base_url : '';
  const save = async (e: Event) => {
    e.preventDefault();
    const v = (value ?? own).trim().replace(/\/+$/, '');
    if (v && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(v))
      return setNote({ ok: false, text: t('ui_public_address_invalid') });
    try {
      await api.put('/config', { base_url: v || null });
      setNote({ ok: true, text: t('ui_saved') });
      setValue(null);
      cfg.reload();
      // The admins' notice at the top of the page is the server's: read the page again without it.
      document.querySelector('.public-address-notice')?.remove();
    } catch (err) {
      setNote({ ok: false, text: errorText(t, err) });
    }
  };
  return (
    <form class="public-address" id="public-address" onSubmit={save} aria-labelledby="public-address-title" noValidate>
      <h2 id="public-address-title">{t('ui_public_address')}</h2>
      <p class="hint" id="public-address-hint">
        {t('ui_public_address_hint')}
      </p>
      <div class="row">
        <label for="public-address-url">{t('ui_public_address_label')}</label>
        <input
          id="public-address-url"
          type="url"
          inputMode="url"
          aria-describedby="public-address-hint"
          placeholder="https://files.example.org"
          value={value ?? own}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button type="submit">{t('ui_save')}</button>
      </div>
      <p class="hint public-address-in-use">{t('ui_public_address_in_use', { url: cfg.data.base_url })}</p>
      {note && (
        <p class={note.ok ? 'ok' : 'error'} role={note.ok ? 'status' : 'alert'}>
          {note.text}
        </p>
      )}
    </form>
  );
}
