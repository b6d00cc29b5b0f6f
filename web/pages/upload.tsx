import { useState } from 'preact/hooks';
import { DownloadLimitField, downloadLimitOf, downloadLimitProblem } from '../components/download-limit';
import { LinkPasswordField } from '../components/link-password';
import { useApp } from '../lib/context';
import { latestExpiry } from '../../src/domain/transfer-input';
import { endOfDay, isoDay, formatBytes } from '../lib/format';
import { ExpiryHint } from '../components/expiry-hint';
import { DaySelect } from '../components/day-select';
import { QuotaUse, quotaRefusal } from '../components/quota-use';
import { errorText } from '../lib/i18n';
import { FilePicker } from '../components/file-picker';
import { RecipientsInput } from '../components/recipients';
import { UploadProgressView } from '../components/upload-progress';
import { ResumeList } from '../components/resume-list';
import { GuestInvitation } from '../components/guest-invitation';
import { PlaceholderEmailPrompt } from '../components/email-form';
import { UploadSummary } from '../components/upload-summary';
import { TRANSFER_OPTIONS, OptionBoxes } from '../components/options';
import type { PickedFile } from '../upload/picked';
import { createUpload } from '../upload/start';
import { pageEngine, resumeOwner, useUploadRunner } from '../upload/use-upload';
import { EncryptSwitch, ENCRYPT_OFF, encryptionChoice, passwordRules } from '../components/encrypt-switch';

const DAY = 86400;

/** The upload page ({base_url}/), for users and (with ?vid=) for guests under their rules. */
export function UploadPage() {
  const app = useApp();
  const { t, lang, info, user, guest, emails } = app;
  const runner = useUploadRunner(app);
  const today = Math.floor(Date.now() / 1000);
  const maxDays = info.max_transfer_days_valid ?? 20;
  const [files, setFiles] = useState<PickedFile[]>([]);
  // A guest sends to the inviter unless told otherwise (as FileSender does): the inviter is a ready recipient.
  const fixedTo = guest?.options.includes('can_only_send_to_me') ? (guest.to ?? t('ui_your_inviter')) : null;
  const firstRecipients = guest?.from && !fixedTo ? [guest.from] : [];
  const [recipients, setRecipients] = useState<string[]>(firstRecipients);
  const [from, setFrom] = useState(emails[0] ?? '');
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [expiry, setExpiry] = useState(isoDay(today + (info.default_transfer_days_valid ?? 10) * DAY));
  const [options, setOptions] = useState<string[]>(
    (user?.transfer_preferences ?? []).filter((o) => o !== 'get_a_link'),
  );
  const [link, setLink] = useState((user?.transfer_preferences ?? []).includes('get_a_link'));
  const [error, setError] = useState<string | null>(null);
  const [downloadLimit, setDownloadLimit] = useState('');
  const [linkPassword, setLinkPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [encrypt, setEncrypt] = useState(ENCRYPT_OFF);
  const encryptionOffered = info.encryption_enabled === true;
  const mustEncrypt = encryptionOffered && info.encryption_mandatory === true;

  const p = runner.progress;
  if (runner.upload && p?.phase === 'done') {
    return (
      <UploadSummary
        record={runner.upload.record}
        transfer={runner.upload.result}
        onAgain={() => {
          runner.clear();
          setFiles([]);
          setRecipients(firstRecipients);
          setSubject('');
          setMessage('');
          setEncrypt(ENCRYPT_OFF);
        }}
      />
    );
  }
  if (runner.upload && p) {
    const cancel = async () => {
      if (!confirm(t('ui_cancel_upload_confirm'))) return;
      await runner.upload?.cancel().catch(() => undefined);
      runner.clear();
    };
    return <UploadProgressView upload={runner.upload} progress={p} onCancel={cancel} />;
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const problem = check();
    if (problem) return setError(problem);
    const expires = endOfDay(expiry);
    setBusy(true);
    try {
      const chunkSize = info.upload_chunk_size ?? 5 * 1024 * 1024;
      const body = {
        recipients: link || fixedTo ? [] : recipients,
        from: guest ? guest.email : from,
        // The end of the chosen day, but never past the server's limit counted from now.
        expires: Math.min(expires ?? Infinity, latestExpiry(today, maxDays)),
        subject,
        message,
        options: link ? [...options, 'get_a_link'] : options,
        download_limit: downloadLimitOf(downloadLimit) ?? undefined,
        password: linkPassword || undefined,
      };
      if (fixedTo && guest?.to) body.recipients = [guest.to];
      const choice =
        encryptionOffered && (encrypt.on || mustEncrypt) ? encryptionChoice(encrypt, passwordRules(info)) : null;
      const encryption = choice
        ? {
            choice,
            iterations: info.encryption_password_hash_iterations ?? 600000,
          }
        : undefined;
      runner.start(
        await createUpload(
          app.api,
          files,
          body,
          resumeOwner(app),
          { ...runner.options(), chunkSize },
          encryption,
          pageEngine(app.api.base),
        ),
      );
      setEncrypt(ENCRYPT_OFF); // the password (typed or generated) is not kept past the start
      setLinkPassword('');
    } catch (err) {
      setError(quotaRefusal(t, lang, err, guest !== null) ?? errorText(t, err));
    } finally {
      setBusy(false);
    }
  };

  const check = (): string | null => {
    if (files.length === 0) return t('ui_need_files');
    if (!link && !fixedTo && recipients.length === 0)
      return guest ? t('ui_need_recipients_guest') : t('ui_need_recipients');
    const total = files.reduce((n, f) => n + f.size, 0);
    if (info.max_transfer_size && total > info.max_transfer_size)
      return t('ui_too_big', { max: formatBytes(info.max_transfer_size, lang) });
    if (info.max_transfer_files && files.length > info.max_transfer_files)
      return t('ui_too_many_files', { count: info.max_transfer_files });
    const expires = endOfDay(expiry);
    if (expires === null || expires < today || expires > today + (maxDays + 1) * DAY)
      return t('ui_bad_expiry', { count: maxDays });
    const badLimit = downloadLimitProblem(t, lang, downloadLimit);
    if (badLimit) return badLimit;
    if (encryptionOffered && (encrypt.on || mustEncrypt) && !encryptionChoice(encrypt, passwordRules(info)))
      return t('ui_encrypt_weak');
    return null;
  };

  return (
    <>
      <ResumeList onResume={(u) => runner.start(u)} options={runner.options} />
      {guest && <GuestInvitation />}
      {!guest && <PlaceholderEmailPrompt />}
      <form
        class="card upload-form"
        onSubmit={submit}
        aria-label={guest ? t('ui_guest_upload_title') : undefined}
        aria-labelledby={guest ? undefined : 'upload-title'}
        noValidate
      >
        {!guest && <h1 id="upload-title">{t('upload_page')}</h1>}
        {!guest && <QuotaUse picked={files.reduce((n, f) => n + f.size, 0)} />}
        <FilePicker files={files} onChange={setFiles} />
        {!guest && (
          <fieldset class="mode">
            <legend>{t('ui_how_to_send')}</legend>
            <label>
              <input type="radio" name="mode" checked={!link} onChange={() => setLink(false)} /> {t('ui_mode_email')}
            </label>
            <label>
              <input type="radio" name="mode" checked={link} onChange={() => setLink(true)} /> {t('ui_mode_link')}
            </label>
          </fieldset>
        )}
        {!guest && emails.length > 1 && (
          <div class="field">
            <label for="upload-from">{t('from')}</label>
            <select id="upload-from" value={from} onChange={(e) => setFrom(e.currentTarget.value)}>
              {emails.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </div>
        )}
        {/* A guest who can only send to the inviter was told so above: no recipient field. */}
        {!fixedTo && !link && (
          <RecipientsInput
            id="upload-recipients"
            label={t('recipients')}
            value={recipients}
            onChange={setRecipients}
            max={info.max_transfer_recipients}
          />
        )}
        <div class="field">
          <label for="upload-subject">{t('subject')}</label>
          <input
            id="upload-subject"
            value={subject}
            maxLength={250}
            onInput={(e) => setSubject(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="upload-message">{t('message')}</label>
          <textarea id="upload-message" rows={4} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="upload-expires">{t('expires')}</label>
          <DaySelect
            id="upload-expires"
            describedBy="upload-expires-hint"
            value={expiry}
            fromDays={1}
            toDays={maxDays}
            onChange={setExpiry}
          />
          <ExpiryHint id="upload-expires-hint" iso={expiry} max={maxDays} />
        </div>
        <DownloadLimitField
          value={downloadLimit}
          onChange={setDownloadLimit}
          invalid={downloadLimitOf(downloadLimit) === undefined}
        />
        <LinkPasswordField value={linkPassword} onChange={setLinkPassword} />
        {encryptionOffered && <EncryptSwitch value={encrypt} onChange={setEncrypt} mandatory={mustEncrypt} />}
        {!guest && (
          <details class="options">
            <summary>{t('ui_more_options')}</summary>
            <OptionBoxes
              names={TRANSFER_OPTIONS.filter((o) => o !== 'get_a_link')}
              value={options}
              onChange={setOptions}
              idPrefix="topt"
            />
          </details>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {link ? t('ui_upload_get_link') : t('ui_send')}
          </button>
        </div>
      </form>
    </>
  );
}
