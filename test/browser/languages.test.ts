import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { LANGUAGE_NAMES } from '../../src/i18n/languages';
import { ownTable } from '../../src/i18n';
import { openBrowser, startFerry, shot, HEADER_SP_CONFIG, asUserHeaders } from './harness';
import { mailSink } from './fixtures';

// Every language on a phone (390×844): the upload page (files chosen, options open), the download page a
// recipient opens, the mail that brought them there (rendered as a mail client shows its HTML part), and the
// sender's transfers page with the transfer's details and buttons open.
// Nothing may stick out sideways: Polish and Czech words are long, and a button, a label or a table cell whose
// text leaves its box, or a page that scrolls sideways, fails here.

const WIDTH = 390;
const HEIGHT = 844;
const LANGS = LANGUAGE_NAMES.map(([code]) => code);

let ferry: BinaryServer;
let dir: string;
let sink: Awaited<ReturnType<typeof mailSink>>;
test.before(async () => {
  dir = tempDir('ferry-browser-languages-');
  sink = await mailSink(dir);
  ferry = await startFerry({ ...HEADER_SP_CONFIG, mail: sink.config });
});
test.after(async () => {
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * What sticks out at the page's width: the document scrolling sideways, any visible element whose box passes
 * the right or left edge (unless a scrolling or clipping ancestor holds it), and any block whose own text is
 * wider than its box (a button label running out of its button).
 */
async function overflows(page: Page): Promise<string[]> {
  // A string, not a function: the test runner's transform would name inner functions with a helper the page lacks.
  return page.evaluate(OVERFLOWS) as Promise<string[]>;
}

const OVERFLOWS = `(() => {
  const out = [];
  const width = document.documentElement.clientWidth;
  const sideways = document.documentElement.scrollWidth - width;
  if (sideways > 0) out.push('the page scrolls sideways by ' + sideways + 'px');
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
  const held = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  for (const el of document.body.querySelectorAll('*')) {
    const s = getComputedStyle(el);
    if (s.display === 'none' || s.visibility === 'hidden' || el.closest('.visually-hidden, [hidden], template')) continue;
    const r = el.getBoundingClientRect();
    // Zero-sized, or parked left of the screen until focused (the skip link).
    if (r.width === 0 || r.height === 0 || r.right <= 0) continue;
    if ((r.right > width + 1 || r.left < -1) && !held(el)) out.push(name(el) + ' spans ' + Math.round(r.left) + '–' + Math.round(r.right) + 'px');
    const block = s.display !== 'inline' && s.overflowX === 'visible' && !['INPUT', 'SELECT', 'TEXTAREA', 'PRE'].includes(el.tagName);
    if (block && el.scrollWidth > el.clientWidth + 1 && !held(el)) out.push(name(el) + ': its content is ' + el.scrollWidth + 'px wide in a ' + el.clientWidth + 'px box');
  }
  return out;
})()`;

/** A Transfer made over REST by a browser in `lang`: its recipients' mail follows the sender's language. */
async function sendIn(lang: string, recipient: string): Promise<{ downloadUrl: string }> {
  const headers = { ...asUserHeaders('alice'), 'Content-Type': 'application/json', 'Accept-Language': lang };
  const call = async (method: string, p: string, body: unknown) => {
    const res = await fetch(ferry.url + p, {
      method,
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const json: any = await res.json().catch(() => null);
    assert.ok(res.ok, `${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const files = {
    'Sprawozdanie-finansowe-za-rok-2026-wersja-ostateczna.xlsx': 'x'.repeat(1_234_567),
    'b.pdf': 'y'.repeat(2000),
  };
  const created = await call('POST', '/transfer', {
    from: 'alice@example.org',
    recipients: [recipient],
    subject: 'Quarterly figures',
    message: 'The figures for the board.',
    expires: Math.floor(Date.now() / 1000) + 5 * 86400,
    files: Object.entries(files).map(([name, content]) => ({ name, size: content.length })),
  });
  for (const f of created.files) {
    const res = await fetch(`${ferry.url}/file/${f.id}/chunk/0?key=${f.uid}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: files[f.name as keyof typeof files],
    });
    assert.is(res.status, 200);
    await call('PUT', `/file/${f.id}?key=${f.uid}`, { complete: true });
  }
  const done = await call('PUT', `/transfer/${created.id}`, { complete: true });
  return { downloadUrl: done.recipients[0].download_url };
}

/** The HTML part of the mail sent to `to`, waited for (bounded). */
async function mailTo(to: string): Promise<{ subject: string; html: string; lang: string | undefined }> {
  const sinkDir = sink.config.sink.dir;
  for (let i = 0; i < 200; i++) {
    for (const f of fs.existsSync(sinkDir) ? fs.readdirSync(sinkDir).filter((n) => n.endsWith('.eml')) : []) {
      const m = await simpleParser(fs.readFileSync(path.join(sinkDir, f)));
      const rcpt = [m.to ?? []].flat().flatMap((a) => a.value.map((v) => v.address));
      if (rcpt.includes(to) && typeof m.html === 'string')
        return {
          subject: m.subject ?? '',
          html: m.html,
          lang: m.headers.get('content-language') as string | undefined,
        };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${to}`);
}

for (const lang of LANGS) {
  test(`${lang} at ${WIDTH}×${HEIGHT}: the upload, transfers and download pages and the mail fit the screen`, async () => {
    const table = ownTable(lang);
    const sender = await openBrowser({ headers: asUserHeaders('alice') });
    const reader = await openBrowser();
    try {
      // Upload page, with files listed, a recipient added and every option shown.
      const { page } = sender;
      await page.setViewportSize({ width: WIDTH, height: HEIGHT });
      await page.goto(`${ferry.url}/?lang=${lang}`);
      await page.locator('#upload-title').waitFor();
      assert.is(await page.getAttribute('html', 'lang'), lang);
      assert.is((await page.locator('#upload-title').innerText()).trim(), table.upload_page);
      await page.setInputFiles('#pick-files', [
        {
          name: 'Sprawozdanie-finansowe-za-rok-2026-wersja-ostateczna.xlsx',
          mimeType: 'application/octet-stream',
          buffer: Buffer.alloc(1_234_567),
        },
        { name: 'zdjęcie z wizyty.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(56_789) },
      ]);
      await page.fill('#upload-recipients', 'first.recipient.with.a.long.address@example.org');
      await page.keyboard.press('Enter');
      await page.locator('details.options summary').click();
      await page.locator('details.options[open]').waitFor();
      const upload = await overflows(page);
      await shot(page, `languages-${lang}-upload`);
      assert.equal(upload, [], `${lang}: upload page`);

      // The download page a recipient opens, and the mail that links to it.
      const recipient = `reader.${lang}@example.org`;
      const { downloadUrl } = await sendIn(lang, recipient);
      await reader.page.setViewportSize({ width: WIDTH, height: HEIGHT });
      await reader.page.goto(`${downloadUrl}&lang=${lang}`);
      await reader.page.locator('table.files').waitFor();
      assert.is(await reader.page.getAttribute('html', 'lang'), lang);
      assert.ok(
        await reader.page.getByRole('link', { name: table.download_all, exact: true }).isVisible(),
        `${lang}: "${table.download_all}"`,
      );
      const download = await overflows(reader.page);
      await shot(reader.page, `languages-${lang}-download`);
      assert.equal(download, [], `${lang}: download page`);

      // The sender's transfers page with that transfer's details open: the longest buttons of the pages.
      await page.goto(`${ferry.url}/?s=transfers`);
      await page.locator('table.transfers td.row-actions button').first().click();
      await page.locator('.details table.audit').waitFor();
      const transfers = await overflows(page);
      await shot(page, `languages-${lang}-transfers`);
      assert.equal(transfers, [], `${lang}: transfers page`);

      const mail = await mailTo(recipient);
      assert.is(mail.lang, lang);
      assert.is(
        mail.subject,
        `${table.mail_transfer_available_subject.replace('{sender}', 'alice@example.org')}: Quarterly figures`,
      );
      // A blank page first: the download page's Content-Security-Policy must not apply to the mail's inline styles.
      await reader.page.goto('about:blank');
      await reader.page.setContent(mail.html);
      assert.is(await reader.page.getAttribute('html', 'lang'), lang);
      assert.ok(
        await reader.page.getByRole('link', { name: table.mail_download_link, exact: true }).isVisible(),
        `${lang}: "${table.mail_download_link}"`,
      );
      const inMail = await overflows(reader.page);
      await shot(reader.page, `languages-${lang}-mail`);
      assert.equal(inMail, [], `${lang}: the mail`);
      assert.equal([...sender.errors, ...reader.errors], [], 'no console errors');
    } finally {
      await sender.close();
      await reader.close();
    }
  });
}

test.run();
