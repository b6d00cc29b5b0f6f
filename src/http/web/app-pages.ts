import Router from '@koa/router';
import type { FerryContext, FerryState } from '../state';
import { html, SafeHtml } from './html';
import { layout, pageT, basePath } from './layout';
import type { PageRegistry } from './pages';
import { safeReturnPath } from '../routes/login';

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
    const local = ctx.state.services.settings.get().auth.sp.type === 'local' && p.type === 'user' && p.via === 'sp';
    return userPage(ctx, 'upload', 'upload_page', p.type === 'user' ? { emails: p.user.emails.join(','), ...(local ? { 'local-account': '1' } : {}) } : {});
  };
  pages.register('', upload);
  pages.register('upload', upload);
  pages.register('transfers', (ctx) => userPage(ctx, 'transfers', 'my_transfers'));
  pages.register('guests', (ctx) => userPage(ctx, 'guests', 'guests'));
  // The password form is for a local account signed in with its session (PUT /user/@me/password).
  pages.register('profile', (ctx) => {
    const p = ctx.state.principal;
    const local = ctx.state.services.settings.get().auth.sp.type === 'local' && p.type === 'user' && p.via === 'sp';
    return userPage(ctx, 'profile', 'ui_profile', local ? { 'local-account': '1' } : {});
  });
  pages.register('admin', (ctx) => {
    const p = ctx.state.principal;
    if (p.type === 'user' && !p.isAdmin) return refusal(ctx, 'rest_admin_required', 403);
    const local = ctx.state.services.settings.get().auth.sp.type === 'local';
    return userPage(ctx, 'admin', 'admin', { ...(ctx.state.services.mailInbox ? { 'mail-sink': '1' } : {}), ...(local ? { 'local-accounts': '1' } : {}) });
  });
}

/** GET /login: the login form (local service provider), or the upload page for one already signed in. */
export function loginRouter(): Router<FerryState> {
  const r = new Router<FerryState>();
  r.get('/login', (ctx) => {
    const c = ctx as FerryContext;
    if (c.state.principal.type === 'user') {
      ctx.redirect(`${basePath(c)}/`);
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = loginPage(c).value;
  });
  return r;
}

function userPage(ctx: FerryContext, page: string, titleKey: string, data: Record<string, string> = {}): SafeHtml {
  const p = ctx.state.principal;
  if (p.type !== 'user') return loginPage(ctx);
  return layout(ctx, { title: pageT(ctx)(titleKey), page, data });
}

/**
 * What the guest upload view shows and must know of the guest's rules (the server enforces them regardless):
 * who invited the guest, their subject and message, where the files go, and how long the invitation lasts.
 * A guest token reads no Guest through the REST API, so the page is given these here.
 */
async function guestData(ctx: FerryContext): Promise<Record<string, string>> {
  const p = ctx.state.principal;
  if (p.type !== 'guest') return {};
  const data: Record<string, string> = { guest: '1', 'guest-email': p.guest.email, 'guest-options': p.guest.options.join(',') };
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

/**
 * The sign-in form. With the local service provider it posts to /login (app.js sends it as JSON with the
 * security header and comes back to the page asked for); with a header SP the proxy signs users in, so
 * reaching this means it did not.
 */
export function loginPage(ctx: FerryContext): SafeHtml {
  const t = pageT(ctx);
  const sp = ctx.state.services.settings.get().auth.sp;
  if (sp.type !== 'local') {
    return layout(ctx, { title: t('login'), body: html`<section class="card narrow"><h1>${t('login')}</h1><p>${t('ui_sp_not_signed_in')}</p></section>` });
  }
  const back = ctx.path === '/login' ? (typeof ctx.query.return === 'string' ? ctx.query.return : '') : ctx.originalUrl;
  const wait = typeof ctx.query.wait === 'string' && /^\d{1,6}$/.test(ctx.query.wait) ? Number(ctx.query.wait) : 0;
  const message = wait ? t('ui_login_throttled', { minutes: String(Math.max(1, Math.ceil(wait / 60))) }) : ctx.query.failed ? t('ui_login_failed') : '';
  const body = html`<section class="card narrow">
<h1>${t('login')}</h1>
<form class="login-form" method="post" action="${basePath(ctx)}/login">
<input type="hidden" name="return" value="${safeReturnPath(back)}">
<div class="field"><label for="login-user">${t('user_id')}</label><input id="login-user" name="user_id" autocomplete="username" required></div>
<div class="field"><label for="login-password">${t('password')}</label><input id="login-password" name="password" type="password" autocomplete="current-password" required></div>
<p class="error" role="alert"${message ? '' : html` hidden`}>${message}</p>
<button type="submit" class="primary">${t('login')}</button>
</form>
</section>`;
  return layout(ctx, { title: t('login'), body, page: 'login' });
}

function refusal(ctx: FerryContext, key: string, status: number): SafeHtml {
  const t = pageT(ctx);
  ctx.status = status;
  return layout(ctx, { title: t(key), body: html`<section class="card narrow"><h1>${t(key)}</h1><p><a href="${basePath(ctx)}/">${t('upload_page')}</a></p></section>` });
}
