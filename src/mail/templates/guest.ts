import type { Guest, Transfer } from '../../domain/model';
import { formatDate, MailParts } from '../render';
import { footer, guestsUrl, MailContext, tr, uploadUrl, withUserSubject } from './context';

export type GuestMailKind = 'created' | 'reminder' | 'deleted' | 'expired';

/** To the guest: invitation, reminder (both with the upload link), withdrawal or expiry (link dead). */
export function guestMail(c: MailContext, g: Guest, kind: GuestMailKind): MailParts {
  const sender = g.userEmail;
  const withLink = kind === 'created' || kind === 'reminder';
  const paragraphs = [tr(c, `mail_guest_${kind}_intro`, { sender })];
  if (withLink && g.expires !== null)
    paragraphs.push(tr(c, 'mail_guest_valid_until', { date: formatDate(g.expires, c.lang) }));
  return {
    lang: c.lang,
    subject: withUserSubject(tr(c, `mail_guest_${kind}_subject`, { sender }), withLink ? g.subject : null),
    paragraphs,
    message: withLink && g.message ? { label: tr(c, 'mail_message_from', { sender }), text: g.message } : null,
    link: withLink ? { label: tr(c, 'mail_upload_link'), url: uploadUrl(c, g.token) } : undefined,
    footer: footer(c),
  };
}

/** To the guest's creator: receipt of the invitation, upload started, upload page opened. */
export function guestCreatorMail(
  c: MailContext,
  g: Guest,
  kind: 'receipt' | 'upload_started' | 'page_access',
  t?: Transfer,
): MailParts {
  const vars = { guest: g.email, id: t?.id ?? '' };
  return {
    lang: c.lang,
    subject: tr(c, `mail_guest_${kind}_subject`, vars),
    paragraphs: [tr(c, `mail_guest_${kind}_intro`, vars)],
    link: { label: tr(c, 'mail_manage_guests_link'), url: guestsUrl(c) },
    footer: footer(c),
  };
}
