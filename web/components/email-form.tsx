import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { errorText } from '../lib/i18n';
import { isEmail } from '../../src/domain/transfer-input';

/** The address `serve` gives the first account (src/domain/accounts.ts): nobody's mailbox. */
export const PLACEHOLDER_EMAIL = 'admin@localhost.localdomain';

/**
 * A local account's e-mail addresses, comma-separated (the first is the sender of its mail and the Reply-To):
 * one's own (PUT /user/@me/email) or, for an admin, a user's (PUT /user/{id}/email).
 */
export function EmailForm({
  userId,
  emails,
  idPrefix,
  onSaved,
  showPlaceholder,
}: {
  userId?: string;
  emails: string[];
  idPrefix: string;
  onSaved(emails: string[]): void;
  /** Show the placeholder address as it is, said to be one (an admin's list), rather than an empty field to fill. */
  showPlaceholder?: boolean;
}) {
  const { api, t } = useApp();
  const [value, setValue] = useState(
    (showPlaceholder ? emails : emails.filter((e) => e !== PLACEHOLDER_EMAIL)).join(', '),
  );
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const list = value.split(/[\s,;]+/).filter(Boolean);
    const wrong = list.find((m) => !isEmail(m));
    if (list.length === 0 || wrong) return setNote({ ok: false, text: t('ui_bad_email', { email: wrong ?? value }) });
    setBusy(true);
    try {
      await api.put(userId ? `/user/${encodeURIComponent(userId)}/email` : '/user/@me/email', { email: list });
      setNote({ ok: true, text: t('ui_saved') });
      onSaved(list);
    } catch (err) {
      setNote({ ok: false, text: errorText(t, err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="row email-form" onSubmit={submit} noValidate>
      <label for={`${idPrefix}-email`}>{userId ? t('ui_email_of', { id: userId }) : t('ui_email')}</label>
      <input
        id={`${idPrefix}-email`}
        type="text"
        inputMode="email"
        spellcheck={false}
        autocomplete={userId ? 'off' : 'email'}
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <button type="submit" disabled={busy}>
        {t('ui_save')}
      </button>
      {showPlaceholder && emails.includes(PLACEHOLDER_EMAIL) && (
        <span class="hint placeholder-email">{t('ui_email_is_placeholder', { email: PLACEHOLDER_EMAIL })}</span>
      )}
      {note && (
        <span class={note.ok ? 'ok' : 'error'} role={note.ok ? 'status' : 'alert'}>
          {note.text}
        </span>
      )}
    </form>
  );
}

/**
 * At sign-in, while one's address is still the placeholder: every mail one sends would come from it (and
 * look like spam), so the first page asks for the real one.
 */
export function PlaceholderEmailPrompt() {
  const { t, emails } = useApp();
  const [done, setDone] = useState(false);
  const local = document.getElementById('main')?.dataset.localAccount === '1';
  if (!local || done || emails[0] !== PLACEHOLDER_EMAIL) return null;
  return (
    <section class="card email-prompt" aria-labelledby="email-prompt-title">
      <h2 id="email-prompt-title">{t('ui_email_prompt_title')}</h2>
      <p>{t('ui_email_prompt', { email: PLACEHOLDER_EMAIL })}</p>
      <EmailForm
        emails={emails}
        idPrefix="prompt"
        onSaved={() => {
          setDone(true);
          location.reload(); // the header and the sender's address come from the server
        }}
      />
    </section>
  );
}
