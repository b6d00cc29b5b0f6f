import { ServiceError } from '../../domain/errors';
import type { DownloadAccess } from '../../domain/downloads';
import { formatDate, humanSize } from '../../mail/render';
import type { FerryContext } from '../state';
import { html, SafeHtml } from './html';
import { visibleName, visibleText } from '../../util/names';
import { basePath, layout, pageT } from './layout';

/**
 * ?s=download&token=T: what the recipient's e-mail links to. Server-rendered so plain links work without
 * JavaScript: sender, subject, message, expiry, each file with its own link, "download all" as a ZIP (or
 * tar), and a checkbox selection submitted as an ordinary GET form.
 */
export async function downloadPage(ctx: FerryContext): Promise<SafeHtml> {
  let access: DownloadAccess;
  try {
    access = await ctx.state.services.downloads.access(ctx.query.token);
  } catch (e) {
    if (e instanceof ServiceError) return downloadErrorPage(ctx, e);
    throw e;
  }
  await ctx.state.services.downloads.viewed(access);
  const t = pageT(ctx);
  const { transfer, recipient, files } = access;
  const base = basePath(ctx);
  const token = recipient.token;
  const link = (extra: string) => `${base}/download?token=${encodeURIComponent(token)}${extra}`;
  const total = files.reduce((n, f) => n + f.size, 0);
  ctx.set('Referrer-Policy', 'no-referrer'); // the token is in this page's URL
  return layout(ctx, {
    title: t('download'),
    body: html`<section class="card download">
<h1>${visibleName(transfer.subject ?? '') || t('download')}</h1>
<dl class="facts">
<dt>${t('from')}</dt><dd>${transfer.userEmail}</dd>
<dt>${t('expires')}</dt><dd>${formatDate(transfer.expires)}</dd>
<dt>${t('size')}</dt><dd>${humanSize(total)} (${files.length} ${t(files.length === 1 ? 'file' : 'files').toLowerCase()})</dd>
</dl>
${transfer.message ? html`<h2>${t('message')}</h2><p class="message">${visibleText(transfer.message)}</p>` : ''}
<form method="get" action="${base}/download" class="download-form">
<input type="hidden" name="token" value="${token}">
<table class="files"><thead><tr><th scope="col"><span class="visually-hidden">${t('download_selected')}</span></th><th scope="col">${t('file')}</th><th scope="col">${t('size')}</th><th scope="col"></th></tr></thead>
<tbody>${files.map(
      (f) => html`<tr>
<td><input type="checkbox" name="files_ids" value="${f.id}" id="f${f.id}" aria-label="${visibleName(f.name)}"></td>
<td><label for="f${f.id}">${visibleName(f.name)}</label>${f.sha256 ? html`<div class="hash">SHA-256 ${f.sha256}</div>` : ''}</td>
<td>${humanSize(f.size)}</td>
<td><a href="${link(`&files_ids=${f.id}`)}" download>${t('download')}</a></td>
</tr>`,
    )}</tbody></table>
<p class="actions">
<button type="submit" name="archive_format" value="zip">${t('download_selected')}</button>
<a class="button primary" href="${link('&archive_format=zip')}" download>${t('download_all')}</a>
<a href="${link('&archive_format=tar')}" download>tar</a>
</p>
</form>
</section>`,
  });
}

/** Unknown, expired or closed: a plain page that says which, and shows nothing of any Transfer. */
export function downloadErrorPage(ctx: FerryContext, e: ServiceError): SafeHtml {
  const t = pageT(ctx);
  const key = e.id === 'transfer_expired' || e.id === 'transfer_closed' ? e.id : e.id === 'file_not_found' ? 'file_not_found' : 'transfer_not_found';
  ctx.status = e.status;
  ctx.type = 'text/html; charset=utf-8';
  return layout(ctx, { title: t(key), body: html`<section class="card narrow"><h1>${t(key)}</h1></section>` });
}
