import { parseQuery, tokenQuery } from '../input';
import { Errors, isError, retryAfterOf, ServiceError } from '../../domain/errors';
import { linkUnlock } from '../download/link-unlock';
import type { DownloadAccess } from '../../domain/downloads';
import type { FerryContext } from '../state';
import { html, SafeHtml } from './html';
import { visibleName, visibleText } from '../../util/names';
import type { TextKey } from '../../i18n';
import { basePath, errorSentence, layout, pageLang, type PageT, pageT } from './layout';
import { formatBytes, formatMoment } from './format';
import { errorPageHtml } from './error-page';
import { safeEntryNames } from '../../shared/entry-names';

/**
 * ?s=download&token=T: what the recipient's e-mail links to. Server-rendered so plain links work without
 * JavaScript: sender, subject, message, expiry, each file with its own link, "download all" as a ZIP (or
 * tar), and a checkbox selection submitted as an ordinary GET form.
 */
export async function downloadPage(ctx: FerryContext): Promise<SafeHtml> {
  const asked = parseQuery(ctx, tokenQuery).token;
  let access: DownloadAccess;
  try {
    access = await ctx.state.services.downloads.access(asked, linkUnlock(ctx, asked));
  } catch (e) {
    if (e instanceof ServiceError) return downloadErrorPage(ctx, e, asked ?? '');
    throw e;
  }
  await ctx.state.services.downloads.viewed(access);
  const t = pageT(ctx);
  const lang = pageLang(ctx);
  const { transfer, recipient, files } = access;
  const base = basePath(ctx);
  const token = recipient.token;
  const link = (extra: string) => `${base}/download?token=${encodeURIComponent(token)}${extra}`;
  ctx.set('Referrer-Policy', 'no-referrer'); // the token is in this page's URL
  if (transfer.encryption) return encryptedDownloadPage(ctx, access, await virusNotice(ctx, access));
  return layout(ctx, {
    title: t('download'),
    body: html`<section class="card download">
${transferFacts(ctx, access)}
${await virusNotice(ctx, access)}
${transfer.message ? html`<h2>${t('message')}</h2><p class="message">${visibleText(transfer.message)}</p>` : ''}
<form method="get" action="${base}/download" class="download-form"${access.controls.downloadLimit !== null ? html` data-limited="1" data-token="${token}" data-spent-text="${t('ui_download_limit_file_spent')}" data-refused-text="${t('ui_download_limit_refused')}"` : ''}>
<input type="hidden" name="token" value="${token}">
<table class="files"><thead><tr><th scope="col"><span class="visually-hidden">${t('download_selected')}</span></th><th scope="col">${t('file')}</th><th scope="col">${t('size')}</th><th scope="col"><span class="visually-hidden">${t('download')}</span></th></tr></thead>
<tbody>${files.map(
      (f) => html`<tr data-file-id="${f.id}">
<td><input type="checkbox" name="files_ids" value="${f.id}" id="f${f.id}" aria-label="${visibleName(f.name)}"${access.spent.includes(f.id) ? html` disabled` : ''}></td>
<td><label for="f${f.id}">${visibleName(f.name)}</label>${f.sha256 ? hashLine(t, f.sha256, visibleName(f.name)) : ''}</td>
<td>${formatBytes(f.size, lang)}</td>
<td>${access.spent.includes(f.id) ? html`<span class="spent">${t('ui_download_limit_file_spent')}</span>` : html`<a href="${link(`&files_ids=${f.id}`)}" download aria-label="${t('ui_download_named', { name: visibleName(f.name) })}">${t('download')}</a>`}</td>
</tr>`,
    )}</tbody></table>
<p class="actions">
<button type="submit" name="archive_format" value="zip" class="download-selected" aria-describedby="select-hint">${t('download_selected')}</button>
<a class="button primary" href="${link('&archive_format=zip')}" download>${t('download_all')}</a>
<a href="${link('&archive_format=tar')}" download>tar</a>
</p>
<p class="hint" id="select-hint">${t('ui_select_files_hint')}</p>
<p class="download-status error" role="status" aria-live="polite" hidden></p>
</form>
</section>`,
  });
}

/**
 * A file's SHA-256, shortened (64 hex digits wrapped to six lines on a phone): its first and last digits,
 * enough to compare by eye, the whole value in the title and for the copy button the page's script shows.
 */
function hashLine(t: PageT, sha256: string, name: string): SafeHtml {
  return html`<div class="hash">SHA-256 <code class="hash-value" title="${sha256}">${sha256.slice(0, 12)}…${sha256.slice(-8)}</code> <button type="button" class="copy-hash" data-hash="${sha256}" data-copied="${t('ui_copied')}" aria-label="${t('ui_copy_hash_of', { name })}" hidden>${t('ui_copy')}</button><span class="copied" role="status" aria-live="polite"></span></div>`;
}

/** The page's script shows these itself, in the page's language. */
const E2EE_MESSAGES: readonly TextKey[] = [
  'e2ee_checking',
  'e2ee_wrong_password',
  'e2ee_unlocked',
  'e2ee_saving',
  'e2ee_saved',
  'e2ee_failed',
  'e2ee_unsupported',
];

/**
 * An end-to-end encrypted Transfer: the server cannot decrypt, so it offers no archive (it could only pack
 * ciphertext). The page's script asks for the password (a form without a name for its field and hidden until
 * the script runs, so the password can never be submitted to the server), checks it on the first chunk, and
 * decrypts each file in the browser as it is saved. What the script needs besides the password is here as
 * data attributes: the salt and iteration count, each file's IV and AEAD. No link on the page gives a file's
 * stored bytes: saved under the file's name they would pass for the file and open as garbage. A client that
 * has the password fetches them itself (`ferry get`, filesender.py -d … -e …).
 */
function encryptedDownloadPage(ctx: FerryContext, access: DownloadAccess, virus: SafeHtml | string): SafeHtml {
  const t = pageT(ctx);
  const lang = pageLang(ctx);
  const { transfer, recipient, files } = access;
  const e = transfer.encryption!;
  // A browser saves one file at a time into a folder the user picks: the last part of the archive's safe name.
  const saveNames = safeEntryNames(files.map((f) => f.name)).map((n) => n.split('/').at(-1) ?? n);
  const messages = E2EE_MESSAGES.map((k) => html` data-${k.replace(/_/g, '-')}="${t(k)}"`);
  // "Decrypt and save all" says how it ended, even when every file had been saved one by one before.
  messages.push(
    html` data-e2ee-saved-all="${t('ui_e2ee_saved_all', { count: files.length })}" data-e2ee-save-all-cancelled="${t('ui_e2ee_save_all_cancelled')}" data-e2ee-saving-all="${t('ui_e2ee_saving_all')}"`,
  );
  return layout(ctx, {
    title: t('download'),
    body: html`<section class="card download encrypted" data-token="${recipient.token}" data-salt="${e.salt}" data-iterations="${e.hashIterations}" data-key-version="${e.keyVersion}" data-password-version="${e.passwordVersion}" data-password-encoding="${e.passwordEncoding}" data-chunk-size="${e.chunkSize}"${messages}>
${transferFacts(ctx, access)}
<p class="notice" role="note">${t('encrypted_download_notice')}</p>
${virus}
${transfer.message ? html`<h2>${t('message')}</h2><p class="message">${visibleText(transfer.message)}</p>` : ''}
<form class="e2ee-unlock" hidden>
<fieldset><legend>${t('e2ee_unlock_legend')}</legend>
<label for="e2ee-password">${t('password')}</label>
<input type="password" id="e2ee-password" autocomplete="off" required>
<button type="submit" class="primary">${t('e2ee_unlock')}</button>
</fieldset>
</form>
<p class="e2ee-status" role="status" aria-live="polite"></p>
<table class="files e2ee-files"><thead><tr><th scope="col">${t('file')}</th><th scope="col">${t('size')}</th><th scope="col"><span class="visually-hidden">${t('download')}</span></th></tr></thead>
<tbody>${files.map(
      (
        f,
        i,
      ) => html`<tr class="e2ee-file" data-file-id="${f.id}" data-size="${f.size}" data-fileiv="${f.iv ?? ''}" data-fileaead="${f.aead ?? ''}" data-save-name="${saveNames[i]}">
<td class="name">${visibleName(f.name)}<div class="e2ee-file-status" role="status">${t('e2ee_locked')}</div></td>
<td class="size">${formatBytes(f.size, lang)}</td>
<td class="act"><button type="button" class="e2ee-save" hidden aria-label="${t('e2ee_save')}: ${visibleName(f.name)}">${t('e2ee_save')}</button></td>
</tr>`,
    )}</tbody></table>
<p class="actions"><button type="button" class="primary e2ee-save-all" hidden>${t('e2ee_save_all')}</button></p>
</section>`,
  });
}

/**
 * A moment as the page's language writes it, with its zone (UTC here); the page's script rewrites it in the
 * reader's own time zone, named (data-moment: web/lib/local-times.ts), where the day may differ.
 */
export function localMoment(unixSeconds: number, lang: string): SafeHtml {
  return html`<time datetime="${new Date(unixSeconds * 1000).toISOString()}" data-moment="${unixSeconds}">${formatMoment(unixSeconds, lang, 'UTC')}</time>`;
}

/**
 * Unknown, expired, closed, withdrawn, spent: the one error page (error-page.ts), which says which and shows
 * nothing of any Transfer, except a spent link's subject and sender (its reader got there through the link,
 * password included). Errors the page does not name read "not found".
 */
export async function downloadErrorPage(ctx: FerryContext, e: ServiceError, token: string): Promise<SafeHtml> {
  if (PASSWORD_ERRORS.has(e.id)) return linkPasswordPage(ctx, e, token);
  const shown = [
    Errors.transferExpired,
    Errors.transferClosed,
    Errors.recipientWithdrawn,
    Errors.downloadLimitReached,
    Errors.transferInfected,
    Errors.transferBeingChecked,
    Errors.fileNotFound,
  ].find((entry) => isError(e, entry));
  const id = (shown ?? Errors.transferNotFound).id;
  const facts =
    id === Errors.downloadLimitReached.id && token
      ? await ctx.state.services.downloads.spentLinkFacts(token).catch(() => null)
      : null;
  ctx.status = e.status;
  ctx.type = 'text/html; charset=utf-8';
  return errorPageHtml(ctx, { id, status: e.status, facts });
}

/**
 * What the virus scan says of an available transfer (docs/sharing.md, Virus scanning): checked and clean, a
 * flagged infected file (named, with its signature), not scanned because the scanner was down, or never
 * scanned because it is end-to-end encrypted. Nothing when scanning is off.
 */
async function virusNotice(ctx: FerryContext, access: DownloadAccess): Promise<SafeHtml | string> {
  const s = ctx.state.services.virusScans;
  const t = pageT(ctx);
  if (access.transfer.encryption)
    return s.enabled() ? html`<p class="notice virus-scan" role="note">${t('ui_virus_encrypted')}</p>` : '';
  const scan = await s.find(access.transfer.id);
  if (!scan) return '';
  if (scan.state === 'clean') return html`<p class="notice virus-scan">${t('ui_virus_clean')}</p>`;
  if (scan.state === 'not_scanned')
    return html`<p class="notice virus-scan" role="note">${t('ui_virus_not_scanned')}</p>`;
  if (scan.state !== 'infected') return '';
  const names = new Map(access.files.map((f) => [f.id, f.name]));
  return html`<div class="error virus-scan" role="alert"><p>${t('ui_virus_flagged')}</p><ul>${scan.findings.map(
    (x) =>
      html`<li>${t('ui_virus_file', { file: visibleName(names.get(x.fileId) ?? `#${x.fileId}`), signature: x.signature })}</li>`,
  )}</ul></div>`;
}

/** The heading and facts both download pages open with: subject, sender, expiry, size and file count. */
function transferFacts(ctx: FerryContext, access: DownloadAccess): SafeHtml {
  const t = pageT(ctx);
  const lang = pageLang(ctx);
  const { transfer, files } = access;
  const total = files.reduce((n, f) => n + f.size, 0);
  const count = t('ui_n_files', { count: files.length });
  return html`<h1>${visibleName(transfer.subject ?? '') || t('download')}</h1>
<dl class="facts">
<dt>${t('from')}</dt><dd>${transfer.userEmail}</dd>
<dt>${t('expires')}</dt><dd>${localMoment(transfer.expires, lang)}</dd>
<dt>${t('size')}</dt><dd>${formatBytes(total, lang)} (${count})</dd>
${access.controls.downloadLimit !== null ? html`<dt>${t('ui_download_limit')}</dt><dd>${t('ui_download_limit_of', { count: access.controls.downloadLimit })}</dd>` : ''}
</dl>`;
}

const PASSWORD_ERRORS = new Set(['download_password_required', 'download_password_incorrect', 'rate_limit_exceeded']);

/**
 * A transfer whose links ask for a password (docs/sharing.md, Link password): this form comes before anything
 * of the transfer is shown. It posts to /download/unlock, which keeps a proof in a cookie and comes back here.
 * It says that this password is the sender's guard on the link, not end-to-end encryption.
 */
function linkPasswordPage(ctx: FerryContext, e: ServiceError, token: string): SafeHtml {
  const t = pageT(ctx);
  ctx.status = e.status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Referrer-Policy', 'no-referrer');
  // Locked for this client: how long to wait, in the header and in words (docs/hardening.md).
  const wait = retryAfterOf(e);
  if (wait !== null) ctx.set('Retry-After', String(wait));
  const sentence =
    wait !== null
      ? t('ui_login_throttled', { minutes: String(Math.max(1, Math.ceil(wait / 60))) })
      : errorSentence(t, e.id);
  const problem = e.id === 'download_password_required' ? '' : html`<p class="error" role="alert">${sentence}</p>`;
  return layout(ctx, {
    title: t('ui_link_password_title'),
    body: html`<section class="card narrow link-password">
<h1>${t('ui_link_password_title')}</h1>
<p class="notice" role="note">${t('ui_link_password_notice')}</p>
<form method="post" action="${basePath(ctx)}/download/unlock">
<input type="hidden" name="token" value="${token}">
<label for="link-password">${t('password')}</label>
<input id="link-password" name="password" type="password" autocomplete="current-password" required autofocus>
${problem}
<p class="actions"><button type="submit" class="primary">${t('ui_link_password_open')}</button></p>
</form>
</section>`,
  });
}
