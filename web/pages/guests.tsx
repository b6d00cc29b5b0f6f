import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { isEmail, latestExpiry } from '../../src/domain/transfer-input';
import { endOfDay, formatDay, isoDay } from '../lib/format';
import { errorText } from '../lib/i18n';
import type { GuestJson } from '../../src/http/presenters/wire';
import { useResource } from '../lib/use-resource';
import { ActionButton } from '../components/action';
import { GUEST_OPTIONS, OptionBoxes, TRANSFER_OPTIONS } from '../components/options';
import { ExpiryHint } from '../components/expiry-hint';
import { DaySelect } from '../components/day-select';
import { CopyButton } from '../components/copy-button';
import { QrButton } from '../components/qr-code';
import { GUEST_OPTIONS_ON_BY_DEFAULT } from '../../src/domain/guest-input';

const DAY = 86400;

/** Guests: invite someone to upload on the user's behalf (POST /guest), and the invitations sent. */
export function GuestsPage() {
  const { api, t } = useApp();
  const list = useResource(() => api.get<GuestJson[]>('/guest'));
  return (
    <>
      <h1 id="guests-page-title" class="page-title">
        {t('guests')}
      </h1>
      <InviteForm onInvited={list.reload} />
      <section class="card" aria-labelledby="guests-title">
        <h2 id="guests-title">{t('ui_invitations')}</h2>
        <GuestTable guests={list.data} error={list.error} reload={list.reload} />
      </section>
    </>
  );
}

function InviteForm({ onInvited }: { onInvited(): void }) {
  const { api, t, info, user, emails, mailKept } = useApp();
  const today = Math.floor(Date.now() / 1000);
  const maxDays = info.max_guest_days_valid ?? 20;
  const [email, setEmail] = useState('');
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [expiry, setExpiry] = useState(isoDay(today + (info.default_guest_days_valid ?? 20) * DAY));
  // The invitation mail is on unless unticked, as the server has it; the user's saved preferences add to it.
  const [options, setOptions] = useState<string[]>([
    ...new Set([...GUEST_OPTIONS_ON_BY_DEFAULT, ...(user?.guest_preferences ?? ['email_upload_started'])]),
  ]);
  const [invited, setInvited] = useState<{ email: string; url: string; mailed: boolean } | null>(null);
  const [transferOptions, setTransferOptions] = useState<string[]>(['email_download_complete']);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!isEmail(email.trim())) return setNote({ ok: false, text: t('ui_bad_email', { email }) });
    const expires = endOfDay(expiry);
    if (
      !options.includes('does_not_expire') &&
      (expires === null || expires > today + (maxDays + 1) * DAY || expires < today)
    )
      return setNote({ ok: false, text: t('ui_bad_expiry', { count: maxDays }) });
    setBusy(true);
    setInvited(null);
    try {
      const g = await api.post<GuestJson>('/guest', {
        recipient: email.trim(),
        from: emails[0] ?? '',
        subject,
        message,
        // Every option named, on or off: a list would only add to the server's defaults, so an unticked
        // "send the invitation e-mail" would still send it.
        options: Object.fromEntries(GUEST_OPTIONS.map((o) => [o, options.includes(o)])),
        transfer_options: transferOptions,
        expires: Math.min(expires ?? Infinity, latestExpiry(today, maxDays)),
      });
      const mailed = g.options.includes('email_guest_created');
      setInvited({ email: g.email, url: g.upload_url, mailed });
      setNote({
        ok: true,
        text: !mailed
          ? t('ui_guest_invited_no_mail', { email: g.email })
          : mailKept
            ? t('ui_guest_invited_kept', { email: g.email })
            : t('ui_guest_invited', { email: g.email }),
      });
      setEmail('');
      setSubject('');
      setMessage('');
      onInvited();
    } catch (err) {
      setNote({ ok: false, text: errorText(t, err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card invite" onSubmit={submit} aria-labelledby="invite-title" noValidate>
      <h2 id="invite-title">{t('ui_invite_guest')}</h2>
      <div class="field">
        <label for="guest-email">{t('ui_guest_email')}</label>
        <input id="guest-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="guest-subject">{t('subject')}</label>
        <input id="guest-subject" value={subject} onInput={(e) => setSubject(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="guest-message">{t('message')}</label>
        <textarea id="guest-message" rows={3} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="guest-expires">{t('expires')}</label>
        <DaySelect
          id="guest-expires"
          describedBy="guest-expires-hint"
          value={expiry}
          fromDays={1}
          toDays={maxDays}
          disabled={options.includes('does_not_expire')}
          onChange={setExpiry}
        />
        {options.includes('does_not_expire') ? (
          <p class="hint" id="guest-expires-hint">
            {t('option_does_not_expire')}
          </p>
        ) : (
          <ExpiryHint id="guest-expires-hint" iso={expiry} max={maxDays} />
        )}
      </div>
      <details class="options">
        <summary>{t('ui_more_options')}</summary>
        <OptionBoxes
          names={GUEST_OPTIONS}
          value={options}
          onChange={setOptions}
          idPrefix="gopt"
          legend={t('ui_guest_options')}
        />
        <OptionBoxes
          names={TRANSFER_OPTIONS.filter((o) => o !== 'add_me_to_recipients')}
          value={transferOptions}
          onChange={setTransferOptions}
          idPrefix="gtopt"
          legend={t('ui_guest_transfer_options')}
        />
      </details>
      {note && (
        <p class={note.ok ? 'ok' : 'error'} role={note.ok ? 'status' : 'alert'}>
          {note.text}
        </p>
      )}
      {invited && (
        <div class="row upload-link">
          <label for="guest-upload-link">{t('ui_guest_upload_link')}</label>
          <input
            id="guest-upload-link"
            class="mono"
            readOnly
            value={invited.url}
            onFocus={(e) => e.currentTarget.select()}
          />
          <CopyButton text={invited.url} label={t('ui_copy_upload_link')} />
          <QrButton text={invited.url} />
        </div>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {t('ui_send_invitation')}
        </button>
      </div>
    </form>
  );
}

/** Shared with the admin page (all guests). */
export function GuestTable({
  guests,
  error,
  reload,
  showOwner,
}: {
  guests: GuestJson[] | null;
  error: unknown;
  reload(): void;
  showOwner?: boolean;
}) {
  const { api, t, lang, mailKept } = useApp();
  if (error)
    return (
      <p class="error" role="alert">
        {errorText(t, error)}
      </p>
    );
  if (!guests) return <p aria-busy="true">{t('ui_loading')}</p>;
  if (guests.length === 0) return <p>{t('ui_no_guests')}</p>;
  return (
    <div class="table-wrap">
      <table class="list guests">
        <thead>
          <tr>
            <th scope="col">{t('ui_guest_email')}</th>
            {showOwner && <th scope="col">{t('from')}</th>}
            <th scope="col">{t('created')}</th>
            <th scope="col">{t('expires')}</th>
            <th scope="col">{t('ui_transfer_count')}</th>
            <th scope="col">
              <span class="visually-hidden">{t('ui_actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {guests.map((g) => (
            <tr key={g.id}>
              <td data-label={t('ui_guest_email')}>
                {g.email}
                {g.subject && <span class="sub">{g.subject}</span>}
              </td>
              {showOwner && <td data-label={t('from')}>{g.user_email}</td>}
              <td class="nowrap" data-label={t('created')}>
                {formatDay(g.created.raw, lang)}
              </td>
              <td class="nowrap" data-label={t('expires')}>
                {g.expires ? formatDay(g.expires.raw, lang) : t('ui_never')}
              </td>
              <td class="nowrap" data-label={t('ui_transfer_count')}>
                {g.transfer_count}
              </td>
              <td class="row-actions">
                <ActionButton
                  run={() => api.put(`/guest/${g.id}`, { remind: true })}
                  label={t('ui_remind_named', { name: g.email })}
                  done={mailKept ? t('ui_reminder_kept') : t('ui_reminder_sent')}
                >
                  {t('ui_remind')}
                </ActionButton>
                <ActionButton
                  run={() => api.delete(`/guest/${g.id}`)}
                  danger
                  confirm={t('ui_delete_guest_confirm', { email: g.email })}
                  label={t('ui_delete_named', { name: g.email })}
                  onDone={reload}
                >
                  {t('ui_delete')}
                </ActionButton>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
