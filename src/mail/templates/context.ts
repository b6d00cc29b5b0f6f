import { type TextKey, translate } from '../../i18n';
import type { FileRecord, Transfer } from '../../domain/model';
import { formatDate, MailParts } from '../render';

/** What every template needs: translation in the mail's language and the instance's links. */
export interface MailContext {
  lang: string;
  defaultLang: string;
  baseUrl: string;
}

export function tr(c: MailContext, key: TextKey, vars: Record<string, string | number> = {}): string {
  return translate(c.lang, key, vars, c.defaultLang);
}

export function footer(c: MailContext): string {
  return tr(c, 'mail_footer', { site: c.baseUrl });
}

/** Appends the sender's subject to a template subject, as recipients see "Alice sent you files: Q3 report". */
export function withUserSubject(base: string, userSubject: string | null): string {
  return userSubject?.trim() ? `${base}: ${userSubject.trim()}` : base;
}

export function filesBlock(c: MailContext, files: FileRecord[]): MailParts['files'] {
  return { label: tr(c, 'mail_files'), items: files.map((f) => ({ name: f.name, size: f.size })) };
}

export function senderMessage(c: MailContext, t: Transfer): MailParts['message'] {
  return t.message ? { label: tr(c, 'mail_message_from', { sender: t.userEmail }), text: t.message } : null;
}

export function availableUntil(c: MailContext, t: Transfer): string {
  return tr(c, 'mail_available_until', { date: formatDate(t.expires, c.lang) });
}

export function downloadUrl(c: MailContext, token: string): string {
  return `${c.baseUrl}/?s=download&token=${encodeURIComponent(token)}`;
}

export function manageUrl(c: MailContext): string {
  return `${c.baseUrl}/?s=transfers`;
}

export function guestsUrl(c: MailContext): string {
  return `${c.baseUrl}/?s=guests`;
}

export function uploadUrl(c: MailContext, guestToken: string): string {
  return `${c.baseUrl}/?s=upload&vid=${encodeURIComponent(guestToken)}`;
}
