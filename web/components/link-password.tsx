import { useApp } from '../lib/context';

/**
 * The upload form's link password (docs/sharing.md, Link password): recipients type it before they see the
 * files. Kept by the server as a hash; it is not end-to-end encryption, and the hint says so.
 */
export function LinkPasswordField({ value, onChange }: { value: string; onChange(v: string): void }) {
  const { t } = useApp();
  return (
    <div class="field">
      <label for="upload-link-password">{t('ui_link_password')}</label>
      <input
        id="upload-link-password"
        type="password"
        autocomplete="new-password"
        maxLength={1024}
        aria-describedby="upload-link-password-hint"
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <small id="upload-link-password-hint" class="hint">
        {t('ui_link_password_hint')}
      </small>
    </div>
  );
}
