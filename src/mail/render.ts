import { html, SafeHtml } from '../util/html';
import { headerSafe } from './transport';
import { visibleName, visibleText } from '../util/names';
import { formatDay } from '../i18n/dates';
import { formatBytes } from '../i18n/sizes';

/** The pieces of a notification, already translated; rendered to a text part and an HTML part. */
export interface MailParts {
  lang: string;
  subject: string;
  paragraphs: string[];
  /** The sender's own message, quoted as given. */
  message?: { label: string; text: string } | null;
  files?: { label: string; items: { name: string; size: number }[] };
  link?: { label: string; url: string };
  table?: { headers: string[]; rows: string[][] };
  footer: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** A file's size as the mail's language writes it, as the pages do ("2.5 MB", "2,5 Mo"). */
export function humanSize(bytes: number, lang: string): string {
  return formatBytes(bytes, lang);
}

/**
 * A day in the mail's language, as the pages write it ("5 Dec 2026", "5. Dez. 2026"). In UTC: the server does
 * not know the reader's time zone, and a mail must say the same day to every reader.
 */
export function formatDate(unix: number, lang: string): string {
  return formatDay(unix, lang, 'UTC');
}

/** User text in either part: control and bidi characters that could disguise content are dropped. */
const plain = visibleText;

export function renderMail(p: MailParts): RenderedMail {
  const text: string[] = [...p.paragraphs.map(plain)];
  if (p.message?.text) text.push(`${p.message.label}\n${plain(p.message.text)}`);
  if (p.files?.items.length)
    text.push(
      `${p.files.label}:\n${p.files.items.map((f) => `- ${visibleName(f.name)} (${humanSize(f.size, p.lang)})`).join('\n')}`,
    );
  if (p.table) {
    text.push(
      p.table.rows.length
        ? [p.table.headers.join(' | '), ...p.table.rows.map((r) => r.map(visibleName).join(' | '))].join('\n')
        : '',
    );
  }
  if (p.link) text.push(`${p.link.label}:\n${p.link.url}`);
  text.push(`--\n${p.footer}`);

  const body: SafeHtml = html`<!doctype html>
<html lang="${p.lang}"><head><meta charset="utf-8"><title>${visibleName(p.subject)}</title></head>
<body style="font-family: sans-serif; line-height: 1.4; color: #222">
${p.paragraphs.map((para) => html`<p>${plain(para)}</p>\n`)}
${p.message?.text ? html`<p>${plain(p.message.label)}</p><blockquote style="white-space: pre-wrap; border-left: 3px solid #ccc; margin: 0; padding-left: 1em">${plain(p.message.text)}</blockquote>\n` : ''}
${p.files?.items.length ? html`<p>${p.files.label}:</p><ul>${p.files.items.map((f) => html`<li>${visibleName(f.name)} (${humanSize(f.size, p.lang)})</li>`)}</ul>\n` : ''}
${p.table ? html`<table border="1" cellpadding="4" style="border-collapse: collapse"><tr>${p.table.headers.map((h) => html`<th>${h}</th>`)}</tr>${p.table.rows.map((r) => html`<tr>${r.map((c) => html`<td>${visibleName(c)}</td>`)}</tr>`)}</table>\n` : ''}
${p.link ? html`<p><a href="${p.link.url}">${p.link.label}</a></p>\n` : ''}
<p style="color: #777; font-size: 90%">${p.footer}</p>
</body></html>`;
  return {
    subject: headerSafe(p.subject, 250),
    text: `${text.filter((t) => t !== '').join('\n\n')}\n`,
    html: body.value,
  };
}
