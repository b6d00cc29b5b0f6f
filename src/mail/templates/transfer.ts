import type { AuditEntry, FileRecord, Recipient, Transfer } from '../../domain/model';
import { textKey } from '../../i18n';
import { formatDate, MailParts } from '../render';
import {
  availableUntil,
  downloadUrl,
  filesBlock,
  footer,
  MailContext,
  manageUrl,
  senderMessage,
  tr,
  withUserSubject,
} from './context';

/** To a recipient: the Transfer is available (or a reminder of it), with that recipient's own link. */
export function transferAvailableMail(
  c: MailContext,
  t: Transfer,
  files: FileRecord[],
  r: Recipient,
  reminder: boolean,
): MailParts {
  const sender = t.userEmail;
  return {
    lang: c.lang,
    subject: withUserSubject(
      tr(c, reminder ? 'mail_reminder_subject' : 'mail_transfer_available_subject', { sender }),
      t.subject,
    ),
    paragraphs: [
      tr(c, reminder ? 'mail_reminder_intro' : 'mail_transfer_available_intro', { sender }),
      // The password never travels with the link: the mail only says that it will come another way.
      ...(t.encryption ? [tr(c, 'mail_encrypted_notice', { sender })] : []),
      availableUntil(c, t),
    ],
    message: senderMessage(c, t),
    files: filesBlock(c, files),
    link: { label: tr(c, 'mail_download_link'), url: downloadUrl(c, r.token) },
    footer: footer(c),
  };
}

/** To the sender: the upload is done and the recipients were told (email_upload_complete / email_me_copies). */
export function uploadCompleteMail(
  c: MailContext,
  t: Transfer,
  files: FileRecord[],
  recipients: Recipient[],
): MailParts {
  const list = recipients.map((r) => r.email || tr(c, 'mail_link_recipient')).join(', ');
  return {
    lang: c.lang,
    subject: withUserSubject(tr(c, 'mail_upload_complete_subject', { id: t.id }), t.subject),
    paragraphs: [tr(c, 'mail_upload_complete_intro', { id: t.id, recipients: list }), availableUntil(c, t)],
    message: senderMessage(c, t),
    files: filesBlock(c, files),
    link: { label: tr(c, 'mail_manage_link'), url: manageUrl(c) },
    footer: footer(c),
  };
}

export function fileRemovedMail(c: MailContext, t: Transfer, file: FileRecord, r: Recipient): MailParts {
  const sender = t.userEmail;
  return {
    lang: c.lang,
    subject: withUserSubject(tr(c, 'mail_file_removed_subject', { sender }), t.subject),
    paragraphs: [tr(c, 'mail_file_removed_intro', { sender, file: file.name }), availableUntil(c, t)],
    link: { label: tr(c, 'mail_download_link'), url: downloadUrl(c, r.token) },
    footer: footer(c),
  };
}

export function recipientRemovedMail(c: MailContext, t: Transfer): MailParts {
  const sender = t.userEmail;
  return {
    lang: c.lang,
    subject: withUserSubject(tr(c, 'mail_recipient_removed_subject', { sender }), t.subject),
    paragraphs: [tr(c, 'mail_recipient_removed_intro', { sender })],
    footer: footer(c),
  };
}

/** To the owner: closed (email_report_on_closing) or expired (email_me_on_expire), with what it held. */
export function transferEndedMail(
  c: MailContext,
  t: Transfer,
  files: FileRecord[],
  recipients: Recipient[],
  expired: boolean,
): MailParts {
  return {
    lang: c.lang,
    subject: withUserSubject(
      tr(c, expired ? 'mail_transfer_expired_subject' : 'mail_transfer_closed_subject', { id: t.id }),
      t.subject,
    ),
    paragraphs: [
      tr(c, expired ? 'mail_transfer_expired_intro' : 'mail_transfer_closed_intro', { id: t.id }),
      recipients.length ? `${recipients.map((r) => r.email || tr(c, 'mail_link_recipient')).join(', ')}` : '',
    ].filter((p) => p),
    files: filesBlock(c, files),
    link: { label: tr(c, 'mail_manage_link'), url: manageUrl(c) },
    footer: footer(c),
  };
}

export function downloadCompleteOwnerMail(c: MailContext, t: Transfer, r: Recipient, files: FileRecord[]): MailParts {
  const recipient = r.email || tr(c, 'mail_link_recipient');
  return {
    lang: c.lang,
    subject: withUserSubject(tr(c, 'mail_download_complete_subject', { recipient, id: t.id }), t.subject),
    paragraphs: [tr(c, 'mail_download_complete_intro', { recipient, id: t.id })],
    files: filesBlock(c, files),
    link: { label: tr(c, 'mail_manage_link'), url: manageUrl(c) },
    footer: footer(c),
  };
}

export function downloadCompleteRecipientMail(c: MailContext, t: Transfer, files: FileRecord[]): MailParts {
  const sender = t.userEmail;
  return {
    lang: c.lang,
    subject: withUserSubject(tr(c, 'mail_download_complete_recipient_subject', { sender }), t.subject),
    paragraphs: [tr(c, 'mail_download_complete_recipient_intro', { sender })],
    files: filesBlock(c, files),
    footer: footer(c),
  };
}

/** The event's name in the mail's language, with the identifier the REST audit log uses. */
function eventName(c: MailContext, event: string): string {
  const key = textKey(`mail_event_${event}`);
  return key ? `${tr(c, key)} (${event})` : event;
}

export function auditLogMail(c: MailContext, t: Transfer, entries: AuditEntry[]): MailParts {
  const describeTarget = (e: AuditEntry) => `${e.target.type} ${e.target.name ?? e.target.email ?? `#${e.target.id}`}`;
  const rows = entries.map((e) => [
    `${formatDate(e.date, c.lang)} ${new Date(e.date * 1000).toISOString().slice(11, 19)} UTC`,
    eventName(c, e.event),
    `${e.author.type} ${e.author.email ?? e.author.id}${e.author.ip ? ` (${e.author.ip})` : ''}`,
    describeTarget(e),
  ]);
  return {
    lang: c.lang,
    subject: tr(c, 'mail_auditlog_subject', { id: t.id }),
    paragraphs: [tr(c, entries.length ? 'mail_auditlog_intro' : 'mail_auditlog_empty', { id: t.id })],
    table: entries.length
      ? {
          headers: (
            ['mail_auditlog_date', 'mail_auditlog_event', 'mail_auditlog_author', 'mail_auditlog_target'] as const
          ).map((k) => tr(c, k)),
          rows,
        }
      : undefined,
    link: { label: tr(c, 'mail_manage_link'), url: manageUrl(c) },
    footer: footer(c),
  };
}

/** To the owner and the admins: a virus scan found infected files (docs/sharing.md, Virus scanning). */
export function virusFoundMail(
  c: MailContext,
  t: Transfer,
  findings: { file: FileRecord; signature: string }[],
  blocked: boolean,
): MailParts {
  const vars = { id: t.id, sender: t.userEmail };
  return {
    lang: c.lang,
    subject: withUserSubject(tr(c, 'mail_virus_found_subject', vars), t.subject),
    paragraphs: [tr(c, blocked ? 'mail_virus_found_blocked' : 'mail_virus_found_flagged', vars)],
    table: {
      headers: [tr(c, 'mail_virus_file'), tr(c, 'mail_virus_signature')],
      rows: findings.map((x) => [x.file.name, x.signature]),
    },
    link: { label: tr(c, 'mail_manage_link'), url: manageUrl(c) },
    footer: footer(c),
  };
}
