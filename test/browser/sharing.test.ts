import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/temp-dir';
import {
  openBrowser,
  startFerry,
  shot,
  rest,
  makeFile,
  HEADER_SP_CONFIG,
  asUserHeaders,
  BrowserSession,
  fillUploadForm,
} from './harness';
import type { Locator } from 'playwright-core';
import { PNG } from 'pngjs';
import jsQR from 'jsqr';

/** What a QR code on the page holds: a screenshot of it, decoded as a phone would (jsQR). */
async function qrText(code: Locator): Promise<string> {
  const png = PNG.sync.read(await code.screenshot());
  const found = jsQR(
    new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length),
    png.width,
    png.height,
  );
  assert.ok(found, 'a readable QR code');
  return found!.data;
}

// Sharing controls in the browser (docs/sharing.md): the upload page sets a download limit, the recipient's
// page says what is left and a spent link is a clear 410 page, the owner sees the counts and raises the limit.

let ferry: BinaryServer;
let b: BrowserSession;
let dir: string;
test.before(async () => {
  dir = tempDir('ferry-browser-sharing-');
  ferry = await startFerry({ ...HEADER_SP_CONFIG });
  b = await openBrowser({ headers: asUserHeaders('alice') });
});
test.after(async () => {
  await b?.close();
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * `file` sent from alice's upload page to `to` with `subject`, each of `fields` (selector: value) filled in too;
 * answers the Transfer as her list shows it.
 */
async function sentFromUploadPage(
  file: { path: string },
  to: string,
  subject: string,
  fields: Record<string, string> = {},
) {
  const { page } = b;
  await fillUploadForm(page, ferry.url, [file.path], to, subject);
  for (const [selector, value] of Object.entries(fields)) await page.fill(selector, value);
  await page.click('button.primary');
  await page.locator('#summary-title').waitFor({ timeout: 60_000 });
  return ((await rest(ferry.url, 'GET', '/transfer', 'alice')).json as any[]).find((x) => x.subject === subject);
}

test('download limit: set on the upload page, counted, a spent link answers a 410 page, the owner raises it', async () => {
  const file = makeFile(dir, 'limited.bin', 40_000);
  const { page } = b;
  const t = await sentFromUploadPage(file, 'rita@example.org', 'Limited', { '#upload-download-limit': '1' });
  assert.is(t.download_limit, 1);
  const token = t.recipients[0].token;

  const recipient = await openBrowser();
  try {
    await recipient.page.goto(`${ferry.url}/?s=download&token=${token}`);
    assert.match(
      await recipient.page.locator('dl.facts').innerText(),
      'Each file may be downloaded 1 time through this link.',
    );
    const got = await fetch(`${ferry.url}/download?token=${token}&files_ids=${t.files[0].id}`);
    assert.is((await got.arrayBuffer()).byteLength, file.size);
    // The end is recorded as the last byte leaves: bounded wait for the page to say the link is spent.
    let status = 0;
    for (let i = 0; i < 100 && status !== 410; i++) {
      const r = await recipient.page.goto(`${ferry.url}/?s=download&token=${token}`);
      status = r?.status() ?? 0;
      if (status !== 410) await new Promise((res) => setTimeout(res, 100));
    }
    assert.is(status, 410);
    assert.match(
      await recipient.page.locator('.error-page .error-reason').innerText(),
      'This link has no downloads left',
    );
    await shot(recipient.page, 'download-limit-reached');

    await page.goto(`${ferry.url}/?s=transfers`);
    const row = page.locator('table.transfers tbody tr', { hasText: 'Limited' }).first();
    await row.locator('button', { hasText: 'Details' }).click();
    const details = page.locator(`#details-${t.id}`);
    await details.locator('.download-counts li', { hasText: 'rita@example.org' }).waitFor();
    assert.match(await details.locator('.download-counts li').innerText(), 'limited.bin: 1 / 1');
    await details.locator(`#download-limit-${t.id}`).fill('3');
    await details.locator('.download-limit button', { hasText: 'Change limit' }).click();
    await details.locator('.download-limit [role=status]', { hasText: 'The download limit is now 3.' }).waitFor();
    await shot(page, 'download-limit-owner');
    const again = await recipient.page.goto(`${ferry.url}/?s=download&token=${token}`);
    assert.is(again?.status(), 200);
  } finally {
    await recipient.close();
  }
});

test("link password: set on the upload page; the recipient's page asks first, says a wrong one, opens with the right one", async () => {
  const file = makeFile(dir, 'guarded.bin', 30_000);
  const t = await sentFromUploadPage(file, 'rita@example.org', 'Guarded', {
    '#upload-link-password': 'open sesame 42',
  });
  assert.is(t.password, true);

  const recipient = await openBrowser();
  try {
    const p = recipient.page;
    const first = await p.goto(`${ferry.url}/?s=download&token=${t.recipients[0].token}`);
    assert.is(first?.status(), 401);
    assert.match(await p.locator('h1').innerText(), 'This link asks for a password');
    assert.match(await p.locator('.notice').innerText(), 'not end-to-end encryption');
    assert.is(await p.getByText('guarded.bin').count(), 0);
    await p.fill('#link-password', 'wrong');
    await p.click('button.primary');
    await p.locator('[role=alert]', { hasText: 'The password is not right.' }).waitFor();
    await p.fill('#link-password', 'open sesame 42');
    await p.click('button.primary');
    await p.locator('table.files', { hasText: 'guarded.bin' }).waitFor();
    await shot(p, 'link-password-opened');
    const [download] = await Promise.all([
      p.waitForEvent('download'),
      p.locator('table.files a', { hasText: 'Download' }).first().click(),
    ]);
    assert.is(fs.statSync((await download.path())!).size, file.size);
  } finally {
    await recipient.close();
  }
});

test('QR codes: the upload-complete page, the transfer details and the guest invitation each show the link, decodable', async () => {
  const file = makeFile(dir, 'qr.bin', 10_000);
  const { page } = b;
  const t = await sentFromUploadPage(file, 'quinn@example.org', 'QR');
  const url = t.recipients[0].download_url;
  const item = page.locator('ul.links li', { hasText: 'quinn@example.org' });
  await item.locator('.qr button').click();
  assert.is(await qrText(item.locator('figure.qr-code')), url);
  await shot(page, 'qr-upload-complete');

  await page.goto(`${ferry.url}/?s=transfers`);
  await page
    .locator('table.transfers tbody tr', { hasText: 'QR' })
    .first()
    .locator('button', { hasText: 'Details' })
    .click();
  const li = page.locator(`#details-${t.id} .recipient-list li`, { hasText: 'quinn@example.org' });
  await li.locator('.qr button').click();
  assert.is(await qrText(li.locator('figure.qr-code')), url);

  await page.goto(`${ferry.url}/?s=guests`);
  await page.locator('#invite-title').waitFor();
  await page.fill('#guest-email', 'gia@example.org');
  await page.click('form.invite button.primary');
  await page.locator('form.invite .ok').waitFor();
  const g = ((await rest(ferry.url, 'GET', '/guest', 'alice')).json as any[]).find(
    (x) => x.email === 'gia@example.org',
  );
  await page.locator('form.invite .upload-link .qr button').click();
  assert.is(await qrText(page.locator('form.invite figure.qr-code')), g.upload_url);
  await shot(page, 'qr-guest-invitation');
});

test.run();
