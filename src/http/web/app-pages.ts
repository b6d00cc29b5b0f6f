import { z } from 'zod';
import type { FerryContext } from '../state';
import { parseQuery } from '../input';
import { errorPageHtml } from './error-page';
import { html, SafeHtml } from './html';
import type { TextKey } from '../../i18n';
import { layout, pageT, basePath } from './layout';
import type { PageRegistry } from './pages';
import { safeReturnPath } from '../return-path';
import type { IdentityProvider, LoginFailure } from '../../auth/identity-provider';

/**
 * ferry's own pages: server-rendered shells whose <main> names the view app.js mounts. The data each view
 * shows comes from the REST API, under the same access rules as for any other client; the shell only decides
 * between the view, the login form, and a refusal.
 */
export function registerWebPages(pages: PageRegistry): void {
  const upload = async (ctx: FerryContext) => {
    const p = ctx.state.principal;
    if (p.type === 'guest') {
      await ctx.state.services.guests.uploadPageOpened(p.guest.id); // email_upload_page_access
      return layout(ctx, { title: pageT(ctx)('upload_page'), page: 'upload', data: await guestData(ctx) });
    }
    // A local account (its provider keeps the addresses here): the page may ask for a real e-mail address.
    const local =
      p.type === 'user' &&
      p.via === 'sp' &&
      !!p.provider &&
      !!ctx.state.services.identity.get(p.provider)?.localAccounts;
    return userPage(
      ctx,
      'upload',
      'upload_page',
      p.type === 'user' ? { emails: p.user.emails.join(','), ...(local ? { 'local-account': '1' } : {}) } : {},
    );
  };
  pages.register('', upload);
  pages.register('upload', upload);
  pages.register('transfers', (ctx) => userPage(ctx, 'transfers', 'my_transfers'));
  pages.register('guests', (ctx) => userPage(ctx, 'guests', 'guests'));
  // The password form is for a local account signed in with its session (PUT /user/@me/password).
  pages.register('profile', (ctx) => {
    const p = ctx.state.principal;
    const local =
      p.type === 'user' &&
      p.via === 'sp' &&
      !!p.provider &&
      !!ctx.state.services.identity.get(p.provider)?.localAccounts;
    return userPage(ctx, 'profile', 'ui_profile', local ? { 'local-account': '1' } : {});
  });
  pages.register('admin', (ctx) => {
    const p = ctx.state.principal;
    if (p.type === 'user' && !p.isAdmin) return refusal(ctx, 'rest_admin_required', 403);
    const local = ctx.state.services.identity.localAccounts;
    return userPage(ctx, 'admin', 'admin', {
      ...(ctx.state.services.mailInbox ? { 'mail-sink': '1' } : {}),
      ...(local ? { 'local-accounts': '1' } : {}),
    });
  });
}

function userPage(ctx: FerryContext, page: string, titleKey: TextKey, data: Record<string, string> = {}): SafeHtml {
  const p = ctx.state.principal;
  if (p.type !== 'user') return loginPage(ctx);
  // Mail kept in the built-in inbox is not called sent on any page (docs/web-behaviour.md).
  const inbox: Record<string, string> = ctx.state.services.mailInbox ? { 'mail-inbox': '1' } : {};
  return layout(ctx, { title: pageT(ctx)(titleKey), page, data: { ...inbox, ...data } });
}

/**
 * What the guest upload view shows and must know of the guest's rules (the server enforces them regardless):
 * who invited the guest, their subject and message, where the files go, and how long the invitation lasts.
 * A guest token reads no Guest through the REST API, so the page is given these here.
 */
async function guestData(ctx: FerryContext): Promise<Record<string, string>> {
  const p = ctx.state.principal;
  if (p.type !== 'guest') return {};
  const data: Record<string, string> = {
    guest: '1',
    'guest-email': p.guest.email,
    'guest-options': p.guest.options.join(','),
  };
  try {
    const g = await ctx.state.services.guests.get(p.guest.id);
    data['guest-from'] = g.userEmail;
    data['guest-subject'] = g.subject ?? '';
    data['guest-message'] = g.message ?? '';
    data['guest-expires'] = g.expires === null ? '' : String(g.expires);
    if (p.guest.options.includes('can_only_send_to_me')) data['guest-to'] = g.userEmail;
  } catch {
    // The guest vanished between authentication and rendering: the view says "the person who invited you".
  }
  return data;
}

/** What the login page is told by where a sign-in came back to (a wrong value is none given). */
const lenient = z.string().optional().catch(undefined);
export const loginPageQuery = z.object({
  return: lenient,
  /** Seconds the login throttle asks to wait. */
  wait: z
    .string()
    .regex(/^\d{1,6}$/)
    .transform(Number)
    .optional()
    .catch(undefined),
  provider: lenient,
  unavailable: lenient,
  failed: lenient,
});

/**
 * The login page: one entry per identity provider, in the config's order. A password provider gets a form
 * posted to /login/<id> (app.js sends it as JSON with the security header and comes back to the page asked
 * for); a redirect provider a button to /login/<id>; a proxy (the header kind) a line saying the proxy signs
 * people in, since reaching this page means it did not.
 */
export function loginPage(ctx: FerryContext, query = parseQuery(ctx, loginPageQuery)): SafeHtml {
  const t = pageT(ctx);
  const base = basePath(ctx);
  const providers = ctx.state.services.identity.list;
  const back = safeReturnPath(ctx.path === '/login' ? (query.return ?? '') : ctx.originalUrl);
  const wait = query.wait;
  const about = query.provider ?? providers.find((p) => p.style === 'password')?.id;
  const message = wait
    ? t('ui_login_throttled', { minutes: String(Math.max(1, Math.ceil(wait / 60))) })
    : query.unavailable
      ? t('ui_login_unavailable')
      : query.failed
        ? t('ui_login_failed')
        : '';
  const several = providers.length > 1;
  let firstForm = true;
  const entries = providers.map((p) => {
    if (p.style === 'proxy') return html`<p>${t('ui_sp_not_signed_in')}</p>`;
    if (p.style === 'redirect') {
      return html`<p><a class="button primary login-button" data-provider="${p.id}" href="${base}/login/${encodeURIComponent(p.id)}?return=${encodeURIComponent(back)}">${t('ui_sign_in_with', { provider: p.label })}</a></p>`;
    }
    const suffix = firstForm ? '' : `-${p.id}`;
    firstForm = false;
    const shown = p.id === about ? message : '';
    return html`<form class="login-form" method="post" action="${base}/login/${encodeURIComponent(p.id)}" data-provider="${p.id}">
${several ? html`<h2>${p.label}</h2>` : html``}<input type="hidden" name="return" value="${back}">
<div class="field"><label for="login-user${suffix}">${t('user_id')}</label><input id="login-user${suffix}" name="user_id" autocomplete="username" required></div>
<div class="field"><label for="login-password${suffix}">${t('password')}</label><input id="login-password${suffix}" name="password" type="password" autocomplete="current-password" required></div>
<p class="error" role="alert"${shown ? '' : html` hidden`}>${shown}</p>
<button type="submit" class="primary">${t('login')}</button>
</form>`;
  });
  const body = html`<section class="card narrow">
<h1>${t('login')}</h1>
${entries}
</section>`;
  return layout(ctx, { title: t('login'), body, page: 'login' });
}

/** A redirect sign-in that did not work: what happened, in the person's language, and a way to try again. */
export function loginFailurePage(ctx: FerryContext, p: IdentityProvider, reason: LoginFailure, status: number): void {
  const t = pageT(ctx);
  const body = html`<section class="card narrow login-failed" data-reason="${reason}">
<h1>${t('ui_sign_in_failed_title')}</h1>
<p>${t(`ui_sign_in_${reason}`, { provider: p.label })}</p>
<p><a href="${basePath(ctx)}/login">${t('ui_sign_in_again')}</a></p>
</section>`;
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = layout(ctx, { title: t('ui_sign_in_failed_title'), body, scripts: [] }).value;
}

/**
 * A provider with several identity providers (a federation's metadata) asks which one first: a list of
 * links back to its start, each naming the identity provider (the discovery page).
 */
export function idpChoicePage(
  ctx: FerryContext,
  p: IdentityProvider,
  choices: Array<{ id: string; label: string }>,
  back: string,
): void {
  const t = pageT(ctx);
  const link = (c: { id: string }) =>
    `${basePath(ctx)}/login/${p.id}?idp=${encodeURIComponent(c.id)}&return=${encodeURIComponent(back)}`;
  const body = html`<section class="card narrow idp-choice" data-provider="${p.id}">
<h1>${t('ui_sign_in_choose_title')}</h1>
<p>${t('ui_sign_in_choose_hint', { provider: p.label })}</p>
<ul class="idp-list">${choices.map((c) => html`<li><a class="button login-button" data-idp="${c.id}" href="${link(c)}">${c.label}</a></li>`)}</ul>
</section>`;
  ctx.status = 200;
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = layout(ctx, { title: t('ui_sign_in_choose_title'), body, scripts: [] }).value;
}

function refusal(ctx: FerryContext, id: string, status: number): SafeHtml {
  ctx.status = status;
  return errorPageHtml(ctx, { id, status });
}
