import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/temp-dir';
import { openBrowser, startFerry, shot, rest, makeFile, HEADER_SP_CONFIG, asUserHeaders, BrowserSession } from './harness';

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

test('download limit: set on the upload page, counted, a spent link answers a 410 page, the owner raises it', async () => {
  const file = makeFile(dir, 'limited.bin', 40_000);
  const { page } = b;
  await page.goto(`${ferry.url}/`);
  await page.locator('#upload-title').waitFor();
  await page.setInputFiles('#pick-files', [file.path]);
  await page.fill('#upload-recipients', 'rita@example.org');
  await page.keyboard.press('Enter');
  await page.fill('#upload-subject', 'Limited');
  await page.fill('#upload-download-limit', '1');
  await page.click('button.primary');
  await page.locator('#summary-title').waitFor({ timeout: 60_000 });
  const list = (await rest(ferry.url, 'GET', '/transfer', 'alice')).json as any[];
  const t = list.find((x) => x.subject === 'Limited');
  assert.is(t.download_limit, 1);
  const token = t.recipients[0].token;

  const recipient = await openBrowser();
  try {
    await recipient.page.goto(`${ferry.url}/?s=download&token=${token}`);
    assert.match(await recipient.page.locator('dl.facts').innerText(), 'Each file may be downloaded 1 times through this link.');
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
    assert.match(await recipient.page.locator('h1').innerText(), 'This link has no downloads left');
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

test('link password: set on the upload page; the recipient\'s page asks first, says a wrong one, opens with the right one', async () => {
  const file = makeFile(dir, 'guarded.bin', 30_000);
  const { page } = b;
  await page.goto(`${ferry.url}/`);
  await page.locator('#upload-title').waitFor();
  await page.setInputFiles('#pick-files', [file.path]);
  await page.fill('#upload-recipients', 'rita@example.org');
  await page.keyboard.press('Enter');
  await page.fill('#upload-subject', 'Guarded');
  await page.fill('#upload-link-password', 'open sesame 42');
  await page.click('button.primary');
  await page.locator('#summary-title').waitFor({ timeout: 60_000 });
  const list = (await rest(ferry.url, 'GET', '/transfer', 'alice')).json as any[];
  const t = list.find((x) => x.subject === 'Guarded');
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
    const [download] = await Promise.all([p.waitForEvent('download'), p.locator('table.files a', { hasText: 'Download' }).first().click()]);
    assert.is(fs.statSync((await download.path())!).size, file.size);
  } finally {
    await recipient.close();
  }
});

test.run();
