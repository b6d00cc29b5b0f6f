import { pageArgsOf } from './page-args';
import { readSinkMessage, sinkMessageHeads } from '../../mail/sink';
import { readEml } from '../../mail/eml';
import { isAdmin } from '../../auth/principal';
import type { FerryContext } from '../state';
import { html, SafeHtml } from './html';
import { basePath, layout, pageLang, pageT } from './layout';
import { localMoment } from './download-page';
import { errorPageHtml } from './error-page';
import type { TextKey } from '../../i18n';
import { loginPage } from './app-pages';

/**
 * ?s=mail-sink (admins only): the messages kept in the built-in inbox (by the SMTP sink, or written there
 * directly when no transport is configured), newest first, and one message's headers
 * and text. Everything from the messages is escaped; message ids must be names the sink itself wrote.
 */
export function mailSinkPage(ctx: FerryContext): SafeHtml | undefined {
  const t = pageT(ctx);
  const lang = pageLang(ctx);
  const p = ctx.state.principal;
  if (p.type === 'anonymous') return loginPage(ctx);
  if (!isAdmin(p)) {
    ctx.status = 403;
    return errorPageHtml(ctx, { id: 'rest_admin_required', status: 403 });
  }
  const dir = ctx.state.services.mailInbox;
  const title = t('ui_mail_sink');
  if (!dir)
    return layout(ctx, {
      title,
      body: html`<section class="card"><h1>${title}</h1><p>${t('ui_mail_sink_off')}</p></section>`,
    });
  const base = basePath(ctx);
  const { id, part } = pageArgsOf(ctx);
  if (id !== undefined) {
    const raw = readSinkMessage(dir, id, 8 * 1024 * 1024);
    if (!raw) {
      ctx.status = 404;
      return layout(ctx, {
        title,
        body: html`<section class="card"><h1>${title}</h1><p>${t('ui_mail_sink_no_message')}</p></section>`,
      });
    }
    const m = readEml(raw.toString('utf8'));
    if (part === 'html') return htmlPart(ctx, m.html);
    const rows = HEADER_LABELS.filter(([h]) => m.headers[h]);
    return layout(ctx, {
      title,
      body: html`<section class="card"><p><a href="${base}/?s=mail-sink">${t('ui_mail_sink')}</a></p>
<h1>${m.headers.subject ?? ''}</h1>
<dl class="mail-headers">${rows.map(([h, label]) => html`<dt>${t(label)}</dt><dd>${h === 'date' ? mailDate(m.headers[h]!, lang) : m.headers[h]}</dd>`)}</dl>
${
  m.html !== null
    ? html`<h2>${t('ui_mail_as_read')}</h2>
<iframe class="mail-frame" title="${t('ui_mail_as_read')}" sandbox="allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation" src="${base}/?s=mail-sink&id=${id}&part=html"></iframe>
<h2>${t('ui_mail_text_part')}</h2>`
    : ''
}
<pre class="mail-text">${linked(m.text)}</pre>
${m.html !== null ? html`<details><summary>${t('ui_mail_html_part')}</summary><pre class="mail-html">${m.html}</pre></details>` : ''}</section>`,
    });
  }
  // Only the head of each file is read: a listing of many large messages stays cheap.
  const messages = sinkMessageHeads(dir, 500);
  return layout(ctx, {
    title,
    body: html`<section class="card"><h1>${title}</h1>
<p>${t('ui_mail_sink_count', { count: messages.length, dir })}</p>
<div class="table-wrap"><table class="mail-list"><thead><tr><th>${t('ui_mail_date')}</th><th>${t('from')}</th><th>${t('ui_mail_to')}</th><th>${t('subject')}</th></tr></thead>
<tbody>${messages.map(({ message: msg, head }) => {
      const h = readEml(head.toString('utf8')).headers;
      return html`<tr><td class="when">${localMoment(Math.floor(msg.mtime / 1000), lang)}</td><td class="addr">${addresses(h.from)}</td><td class="addr">${addresses(h.to)}</td><td><a href="${base}/?s=mail-sink&id=${msg.id}">${h.subject || msg.id}</a></td></tr>`;
    })}</tbody></table></div></section>`,
  });
}

/** The headers a message's page shows, each under its label in the page's language. */
const HEADER_LABELS: [string, TextKey][] = [
  ['date', 'ui_mail_date'],
  ['from', 'from'],
  ['to', 'ui_mail_to'],
  ['reply-to', 'ui_mail_reply_to'],
  ['subject', 'subject'],
  ['content-language', 'ui_language'],
];

/** A Date header in the reader's time zone, named (the header as written when it cannot be read). */
function mailDate(header: string, lang: string): SafeHtml | string {
  const at = Date.parse(header);
  return Number.isNaN(at) ? header : localMoment(Math.floor(at / 1000), lang);
}

/** A list of addresses, each kept whole on its line (a cell may wrap between them, never inside one). */
function addresses(header: string | undefined): SafeHtml[] {
  return (header ?? '')
    .split(/,\s*/)
    .filter(Boolean)
    .map((a, i) => html`${i ? ', ' : ''}<span class="addr-one">${a}</span>`);
}

/** The text part with its web addresses as links (everything else, and the address itself, escaped). */
function linked(text: string): SafeHtml[] {
  const out: SafeHtml[] = [];
  let at = 0;
  for (const m of text.matchAll(/https?:\/\/[^\s<>"]*[^\s<>".,;:!?)]/g)) {
    out.push(html`${text.slice(at, m.index)}`, html`<a href="${m[0]}">${m[0]}</a>`);
    at = m.index! + m[0].length;
  }
  out.push(html`${text.slice(at)}`);
  return out;
}

/**
 * A message's HTML part as the recipient's mail program shows it, for the page's sandboxed frame: the
 * response's own policy allows no script, no remote load (inline styles and data: images only), no form,
 * and framing by ferry's pages alone; links open at the top (a <base target> put first), so they work.
 */
function htmlPart(ctx: FerryContext, part: string | null): undefined {
  ctx.state.ownCsp = true;
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation",
  );
  ctx.set('X-Frame-Options', 'SAMEORIGIN');
  ctx.type = 'text/html; charset=utf-8';
  if (part === null) ctx.status = 404;
  ctx.body = `<!DOCTYPE html><base target="_top">${part ?? ''}`;
  return undefined;
}
