import type { Context } from 'koa';
import type { FerryContext } from '../state';
import { PAGE_CSP } from '../middleware/security-headers';
import { html, type SafeHtml } from './html';
import { basePath, errorSentence, layout, pageT } from './layout';
import { requestId } from '../request-id';
import { visibleName } from '../../util/names';
import type { TextKey } from '../../i18n';

/**
 * A page opened in a browser that fails before any page renders (an expired or unknown guest link, a
 * refused session, a path that names nothing) is answered with a page, not the API's JSON error body. Only
 * for GET of a page URL, or of a path no route knows, by a client that prefers HTML; API clients (which ask
 * for JSON or for anything) keep the JSON body.
 */
export function wantsErrorPage(ctx: Context, id?: string): boolean {
  if (ctx.method !== 'GET' || ctx.query.callback || ctx.accepts('json', 'html') !== 'html') return false;
  return ctx.path === '/' || id === 'rest_endpoint_not_found';
}

/** The heading of an error page, by what kind of refusal it is; the reason comes under it in words. */
function titleOf(status: number): TextKey {
  if (status === 401 || status === 403) return 'ui_error_title_refused';
  if (status === 404) return 'ui_error_title_not_found';
  if (status === 410) return 'ui_error_title_gone';
  if (status === 409 || status === 423) return 'ui_error_title_unavailable';
  return status >= 500 ? 'ui_error_title_server' : 'ui_error_title_problem';
}

export interface ErrorPage {
  /** The catalogue's error id: its sentence is the page's reason. */
  id: string;
  status: number;
  /** The uid the error was logged under (the request's id when not given). */
  uid?: string;
  /** What the link was about, when the reader may know it (a spent download link: its subject and sender). */
  facts?: { subject: string; from: string } | null;
}

/**
 * The one error page design (docs/web-behaviour.md, "Error pages"): a short heading saying what kind of
 * refusal, the reason as a sentence, what the link was about when known, the error's reference, and a way on.
 * Every server-rendered refusal uses it: download links, guest links, admin pages, unknown paths.
 */
export function errorPageHtml(ctx: FerryContext, e: ErrorPage): SafeHtml {
  const t = pageT(ctx);
  const title = t(titleOf(e.status));
  const uid = e.uid ?? ctx.state.requestId ?? requestId();
  const facts = e.facts
    ? html`<dl class="facts">
${e.facts.subject ? html`<dt>${t('subject')}</dt><dd>${visibleName(e.facts.subject)}</dd>` : ''}
<dt>${t('from')}</dt><dd>${e.facts.from}</dd>
</dl>`
    : '';
  return layout(ctx, {
    title,
    body: html`<section class="card narrow error-page" data-error="${e.id}">
<h1>${title}</h1>
<p class="error-reason">${e.id === 'rest_endpoint_not_found' ? t('ui_page_not_found') : errorSentence(t, e.id)}</p>
${facts}
<p class="hint error-reference">${t('ui_error_reference', { uid })}</p>
<p><a href="${basePath(ctx)}/">${t('upload_page')}</a></p>
</section>`,
  });
}

export function renderErrorPage(koaCtx: Context, id: string, status: number, uid: string): void {
  const ctx = koaCtx as FerryContext;
  const page = errorPageHtml(ctx, { id, status, uid });
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', PAGE_CSP); // the security middleware's own pass was cut short by the error
  ctx.set('Cache-Control', 'no-store');
  ctx.body = page.value;
}
