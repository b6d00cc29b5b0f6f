import { pageArgsOf } from './page-args';
import { LANGS, normaliseLang, type TextKey, textKey, translate, translations } from '../../i18n';
import { knownRequestLang } from '../request-lang';
import type { FerryContext } from '../state';
import { html, SafeHtml } from './html';
import { webAssets } from './assets';

/**
 * The page shell every web page uses, ferry's own and other engineers' (download page, mail sink): the
 * header (user, navigation, language switch, logout), the security token for the page's script, and the
 * bundled CSS/JS from /assets. No inline script or style anywhere (CSP `script-src 'self'`).
 */
export interface LayoutOptions {
  title: string;
  /** Server-rendered content of <main>; escaped by html``. */
  body?: SafeHtml;
  /** Asset names of the scripts to load (default: app.js, which mounts the page named by `page`). */
  scripts?: string[];
  /** Tells app.js which view to mount in <main> (data-page); absent for pages the server renders whole. */
  page?: string;
  /** Extra data-* attributes on <main> for the page's script (values escaped). */
  data?: Record<string, string>;
}

const LANG_COOKIE = 'ferry_lang';

/** The language of a page: ?lang= (remembered in a cookie), the user's preference, the cookie, the browser's. */
export function pageLang(ctx: FerryContext): string {
  if (ctx.state.lang) return ctx.state.lang;
  const asked = normaliseLang(pageArgsOf(ctx).lang);
  let lang: string;
  if (asked) {
    ctx.cookies.set(LANG_COOKIE, asked, { httpOnly: false, sameSite: 'lax', maxAge: 365 * 86400_000, overwrite: true });
    lang = asked;
  } else {
    // The user's preference is read before the page renders (PageRegistry calls loadUserLang).
    const pref = normaliseLang(ctx.state.userLang);
    lang = pref ?? normaliseLang(ctx.cookies.get(LANG_COOKIE)) ?? knownRequestLang(ctx);
  }
  ctx.state.lang = lang;
  return lang;
}

/** Path part of base_url without the trailing slash ("" at the root), for links behind a path prefix. */
export function basePath(ctx: FerryContext): string {
  try {
    return new URL(ctx.state.services.settings.get().base_url).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/** A text of a server-rendered page, in its language. */
export type PageT = (key: TextKey, vars?: Record<string, string | number>) => string;

/** An error's message id as a sentence of the page: its text, or a generic one naming the id. */
export function errorSentence(t: PageT, id: string): string {
  const key = textKey(id);
  return key ? t(key) : t('ui_error_with_id', { id });
}

/** A translator bound to the page's language, for server-rendered text. */
export function pageT(ctx: FerryContext): PageT {
  const lang = pageLang(ctx);
  const def = ctx.state.services.settings.get().default_lang;
  return (key, vars = {}) => translate(lang, key, vars, def);
}

export function layout(ctx: FerryContext, opts: LayoutOptions): SafeHtml {
  const lang = pageLang(ctx);
  const t = pageT(ctx);
  const base = basePath(ctx);
  const assets = webAssets();
  const p = ctx.state.principal;
  const token = p.type === 'user' ? (p.csrfToken ?? '') : '';
  const scripts = opts.scripts ?? ['app.js'];
  const data = Object.entries({ ...(opts.data ?? {}), ...(opts.page ? { page: opts.page } : {}) });
  return html`<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="ferry-security-token" content="${token}">
<meta name="ferry-base" content="${base}">
<title>${opts.title} · ${t('app_name')}</title>
<link rel="icon" href="${assets.url('favicon.ico', base)}">
<link rel="stylesheet" href="${assets.url('app.css', base)}">
${scripts.map((s) => html`<script defer src="${assets.url(s, base)}"></script>\n`)}
</head>
<body>
<a class="skip" href="#main">${t('ui_skip_to_content')}</a>
${header(ctx, t, base, lang)}
${publicAddressNotice(ctx, t, base)}
${mailInboxNotice(ctx, t, base)}
<main id="main" tabindex="-1"${data.map(([k, v]) => html` data-${k.replace(/[^a-z0-9-]/g, '')}="${v}"`)}>
${opts.body ?? ''}
${opts.page ? html`<noscript><p class="notice">${t('ui_needs_javascript')}</p></noscript>` : ''}
</main>
<footer class="foot"><span>${t('app_name')} ${ctx.state.services.version}</span></footer>
</body>
</html>`;
}

function header(ctx: FerryContext, t: PageT, base: string, lang: string): SafeHtml {
  const p = ctx.state.principal;
  const current = pageArgsOf(ctx).s ?? '';
  const link = (s: string, key: TextKey) =>
    html`<a href="${base}/${s ? `?s=${s}` : ''}"${current === s || (s === '' && current === 'upload') ? html` aria-current="page"` : ''}>${t(key)}</a>`;
  let nav: SafeHtml | string = '';
  let who: SafeHtml | string = '';
  if (p.type === 'user') {
    nav = html`<nav aria-label="${t('ui_main_menu')}">${link('', 'upload_page')}${link('transfers', 'my_transfers')}${link('guests', 'guests')}${p.isAdmin ? link('admin', 'admin') : ''}${link('profile', 'ui_profile')}</nav>`;
    const name = p.user.emails[0] ?? p.user.id;
    // Only a local session can be ended here; with a header SP the proxy owns the session.
    const logout = p.csrfToken ? html`<a class="logout" href="${base}/logout">${t('logout')}</a>` : '';
    who = html`<div class="who"><span class="user" title="${p.user.id}">${name}</span>${logout}</div>`;
  } else if (p.type === 'guest') {
    who = html`<div class="who"><span class="user">${p.guest.email}</span></div>`;
  }
  return html`<header class="top">
<a class="brand" href="${base}/">${t('app_name')}</a>
${nav}
${who}
${langSwitch(ctx, t, lang)}
</header>`;
}

/**
 * Admins only, on every page: mail is kept in the built-in inbox instead of being delivered (no mail.transport
 * configured), so nobody is told of a transfer until they configure one. Links to the inbox viewer.
 */
function mailInboxNotice(ctx: FerryContext, t: PageT, base: string): SafeHtml | string {
  const p = ctx.state.principal;
  if (p.type !== 'user' || !p.isAdmin || !ctx.state.services.mailInbox) return '';
  const [before, after = ''] = t('ui_mail_inbox_banner', { key: '\u0000' }).split('\u0000');
  return html`<aside class="site-notice" aria-label="${t('ui_mail_notice_label')}"><p>${before}<code>mail.transport</code>${after} <a href="${base}/?s=mail-sink">${t('ui_mail_inbox_open')}</a></p></aside>`;
}

/**
 * Admins only, on every page: serve listens on every address but no public address is set, so every mailed
 * link names localhost (dead for everyone else). Links to the setting in Administration.
 */
function publicAddressNotice(ctx: FerryContext, t: PageT, base: string): SafeHtml | string {
  const p = ctx.state.principal;
  const settings = ctx.state.services.settings;
  if (p.type !== 'user' || !p.isAdmin || !settings.publicAddressMissing()) return '';
  return html`<aside class="site-notice public-address-notice" aria-label="${t('ui_public_address')}"><p>${t('ui_public_address_banner', { url: settings.get().base_url })} <a href="${base}/?s=admin#public-address">${t('ui_public_address_set')}</a></p></aside>`;
}

/** A plain GET form, so the switch works with the keyboard and even before the script has loaded. */
function langSwitch(ctx: FerryContext, t: PageT, lang: string): SafeHtml {
  // The page's other arguments, each given once, stay as they are.
  const keep = Object.entries(ctx.query).flatMap(([k, v]): [string, string][] =>
    k !== 'lang' && v !== undefined && !Array.isArray(v) ? [[k, v]] : [],
  );
  return html`<form class="lang" method="get" action="">
${keep.map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<label for="lang-select">${t('ui_language')}</label>
<select id="lang-select" name="lang">${LANGS.map((l) => html`<option value="${l}"${l === lang ? ' selected' : ''}>${translations(l).lang_name}</option>`)}</select>
<button type="submit">${t('ui_change')}</button>
</form>`;
}
