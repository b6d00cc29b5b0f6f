import { readSinkMessage, sinkMessageHeads } from '../../mail/sink';
import { readEml } from '../../mail/eml';
import { isAdmin } from '../../auth/principal';
import type { FerryContext } from '../state';
import { html, SafeHtml } from './html';
import { basePath, layout, pageT } from './layout';
import { loginPage } from './app-pages';

/**
 * ?s=mail-sink (admins only): the messages kept in the built-in inbox (by the SMTP sink, or written there
 * directly when no transport is configured), newest first, and one message's headers
 * and text. Everything from the messages is escaped; message ids must be names the sink itself wrote.
 */
export function mailSinkPage(ctx: FerryContext): SafeHtml | undefined {
  const t = pageT(ctx);
  const p = ctx.state.principal;
  if (p.type === 'anonymous') return loginPage(ctx);
  if (!isAdmin(p)) {
    ctx.status = 403;
    return layout(ctx, {
      title: t('rest_admin_required'),
      body: html`<section class="card narrow"><h1>${t('rest_admin_required')}</h1></section>`,
    });
  }
  const dir = ctx.state.services.mailInbox;
  const title = t('ui_mail_sink');
  if (!dir)
    return layout(ctx, {
      title,
      body: html`<section class="card"><h1>${title}</h1><p>${t('ui_mail_sink_off')}</p></section>`,
    });
  const base = basePath(ctx);
  const id = typeof ctx.query.id === 'string' ? ctx.query.id : null;
  if (id !== null) {
    const raw = readSinkMessage(dir, id, 8 * 1024 * 1024);
    if (!raw) {
      ctx.status = 404;
      return layout(ctx, {
        title,
        body: html`<section class="card"><h1>${title}</h1><p>${t('ui_mail_sink_no_message')}</p></section>`,
      });
    }
    const m = readEml(raw.toString('utf8'));
    if (ctx.query.part === 'html') return htmlPart(ctx, m.html);
    const rows = ['date', 'from', 'to', 'reply-to', 'subject', 'content-language'].filter((h) => m.headers[h]);
    return layout(ctx, {
      title,
      body: html`<section class="card"><p><a href="${base}/?s=mail-sink">${t('ui_mail_sink')}</a></p>
<h1>${m.headers.subject ?? ''}</h1>
<dl class="mail-headers">${rows.map((h) => html`<dt>${h}</dt><dd>${m.headers[h]}</dd>`)}</dl>
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
<table class="mail-list"><thead><tr><th>${t('ui_mail_date')}</th><th>${t('from')}</th><th>${t('ui_mail_to')}</th><th>${t('subject')}</th></tr></thead>
<tbody>${messages.map(({ message: msg, head }) => {
      const h = readEml(head.toString('utf8')).headers;
      return html`<tr><td>${new Date(msg.mtime).toISOString().replace('T', ' ').slice(0, 19)}</td><td>${h.from ?? ''}</td><td>${h.to ?? ''}</td><td><a href="${base}/?s=mail-sink&id=${msg.id}">${h.subject || msg.id}</a></td></tr>`;
    })}</tbody></table></section>`,
  });
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
