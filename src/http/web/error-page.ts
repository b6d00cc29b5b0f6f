import type { Context } from 'koa';
import type { FerryContext } from '../state';
import { PAGE_CSP } from '../middleware/security-headers';
import { html } from './html';
import { basePath, errorSentence, layout, pageT } from './layout';

/**
 * A page opened in a browser that fails before any page renders (an expired or unknown guest link, a
 * refused session) is answered with a page, not the API's JSON error body. Only for GET of the page URL by
 * a client that prefers HTML; API clients keep the JSON body.
 */
export function wantsErrorPage(ctx: Context): boolean {
  return ctx.method === 'GET' && ctx.path === '/' && !ctx.query.callback && ctx.accepts('json', 'html') === 'html';
}

export function renderErrorPage(koaCtx: Context, id: string, status: number, uid: string): void {
  const ctx = koaCtx as FerryContext;
  const t = pageT(ctx);
  const text = errorSentence(t, id);
  const body = html`<section class="card narrow error-page">
<h1>${text}</h1>
<p class="hint">${t('ui_error_reference', { uid })}</p>
<p><a href="${basePath(ctx)}/">${t('upload_page')}</a></p>
</section>`;
  const page = layout(ctx, { title: text, body, scripts: [] });
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', PAGE_CSP); // the security middleware's own pass was cut short by the error
  ctx.set('Cache-Control', 'no-store');
  ctx.body = page.value;
}
