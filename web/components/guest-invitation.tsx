import { useApp } from '../lib/context';
import { daysLeft, formatDay } from '../lib/format';

/**
 * The top of a guest's upload page: who invited them and what they asked for, where the files will go, as
 * whom they are sent, and how long the invitation lasts. Only what applies to this invitation is said.
 */
export function GuestInvitation() {
  const { t, lang, guest } = useApp();
  if (!guest) return null;
  const inviter = guest.from ?? t('ui_your_inviter');
  const oneTime = guest.options.includes('valid_only_one_time');
  return (
    <section class="card invitation" aria-labelledby="upload-title">
      <h1 id="upload-title">{t('ui_guest_upload_title')}</h1>
      <p class="invited-by">{t('ui_guest_invited_by', { name: inviter })}</p>
      {(guest.subject || guest.message) && (
        <div class="invitation-message">
          <h2>{guest.subject || t('ui_guest_message_heading', { name: inviter })}</h2>
          {guest.message && <p class="message">{guest.message}</p>}
        </div>
      )}
      <ul class="invitation-facts">
        <li class="files-go-to">
          {guest.to
            ? t('ui_guest_files_go_to', { email: guest.to })
            : guest.from
              ? t('ui_guest_files_go_to_inviter_and', { email: guest.from })
              : t('ui_guest_files_go_to_recipients')}
        </li>
        <li>{t('ui_guest_sent_as', { email: guest.email })}</li>
        <li class="valid-until">
          {guest.expires === null
            ? t('ui_guest_no_expiry')
            : t('ui_guest_valid_until', { date: formatDay(guest.expires, lang), count: daysLeft(guest.expires) })}
          {oneTime && <> {t('ui_guest_one_time')}</>}
        </li>
      </ul>
    </section>
  );
}
