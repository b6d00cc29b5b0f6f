import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { sendViaRest } from './fixtures';
import { openBrowser, startFerry, shot, rest, HEADER_SP_CONFIG, asUserHeaders } from './harness';

// The small things a new user trips over: a SHA-256 that fills a phone's screen, a quota passed that is told
// only after "Send", a date in the browser's format on a page in another language, "MB" in French, an empty
// box around a switch, and an overview that counts fewer users than there are.

let ferry: BinaryServer;
let dir: string;
test.before(async () => {
  dir = tempDir('ferry-browser-small-');
  ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'], user_quota: 1_000_000 });
});
test.after(async () => {
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('on a phone, each SHA-256 takes one short line, and its button copies the whole value', async () => {
  const t = await sendViaRest(
    ferry.url,
    'alice',
    'Hashes',
    { 'report-with-a-long-name-2026.pdf': 'r'.repeat(5000), 'b.txt': 'b' },
    ['rita@example.org'],
  );
  const b = await openBrowser();
  try {
    await b.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ferry.url });
    await b.page.setViewportSize({ width: 390, height: 844 });
    await b.page.goto(`${ferry.url}/?s=download&token=${t.recipients[0].token}`);
    const hash = b.page.locator('.hash').first();
    await hash.waitFor();
    const full = await hash.locator('button.copy-hash').getAttribute('data-hash');
    assert.match(full ?? '', /^[0-9a-f]{64}$/);
    assert.is(await hash.locator('code').innerText(), `${full!.slice(0, 12)}…${full!.slice(-8)}`);
    const lineHeight = await hash.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 16);
    const box = (await hash.boundingBox())!;
    await shot(b.page, 'small-download-hash-phone');
    assert.ok(box.height <= lineHeight * 2.2, `the SHA-256 line is ${box.height}px high`);
    await hash.locator('button.copy-hash').click();
    await hash.locator('.copied', { hasText: 'Copied.' }).waitFor();
    assert.is(await b.page.evaluate(() => navigator.clipboard.readText()), full);
  } finally {
    await b.close();
  }
});

test('the quota is warned of when the files are picked, with "exceed"; the expiry days and sizes are written in the page’s language; the encryption switch has no empty box', async () => {
  const b = await openBrowser({ headers: asUserHeaders('dave') });
  try {
    const { page } = b;
    await page.goto(`${ferry.url}/?lang=en`);
    await page.locator('.quota-use').waitFor();
    await page.setInputFiles('#pick-files', [
      { name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(2_000_000) },
    ]);
    const warn = page.locator('.quota-over');
    await warn.waitFor();
    assert.match(
      (await warn.innerText()).replace(/\u00a0/g, ' '),
      /^These files \(2\.0 MB\) exceed what is left of your quota \(1\.0 MB of 1\.0 MB\)/,
    );
    assert.not.match(await page.locator('form.upload-form').innerText(), / pass /);
    // Off, the switch is a line of its own, not an empty bordered box.
    const box = await page
      .locator('fieldset.encrypt')
      .evaluate((f) => ({ border: getComputedStyle(f).borderTopWidth, height: f.getBoundingClientRect().height }));
    assert.is(box.border, '0px');
    assert.ok(box.height < 40, `the switch is ${box.height}px high`);
    await shot(page, 'small-upload-quota-warning');

    await page.goto(`${ferry.url}/?lang=fr`);
    await page.locator('.quota-use').waitFor();
    assert.match((await page.locator('.quota-use').innerText()).replace(/[\u00a0\u202f]/g, ' '), /1,0 Mo/);
    await page.setInputFiles('#pick-files', [
      { name: 'petit.txt', mimeType: 'text/plain', buffer: Buffer.alloc(1500) },
    ]);
    assert.match((await page.locator('.dropzone .total').innerText()).replace(/[\u00a0\u202f]/g, ' '), /1,5 ko/);
    assert.not.match(await page.locator('main').innerText(), /\d\s?(kB|MB)\b/);
    // The expiry is chosen among days written as the page writes them, never the browser's 12/07/2026.
    const chosen = await page
      .locator('#upload-expires')
      .evaluate((s: HTMLSelectElement) => s.selectedOptions[0].textContent ?? '');
    assert.match(chosen, /^\d{1,2} \S+ \d{4}$/);
    assert.not.match(chosen, /\//);
    const hint = await page.locator('#upload-expires-hint').innerText();
    assert.ok(hint.includes(chosen), `"${chosen}" is the day the hint names: ${hint}`);
    await page.selectOption('#upload-expires', { index: 2 });
    const other = await page
      .locator('#upload-expires')
      .evaluate((s: HTMLSelectElement) => s.selectedOptions[0].textContent ?? '');
    assert.ok((await page.locator('#upload-expires-hint').innerText()).includes(other));
    await shot(page, 'small-upload-french');
  } finally {
    await b.close();
  }
});

test('the admin overview counts every account, as the Users tab lists them', async () => {
  // eve has an account (she signed in once) but sent nothing.
  assert.is((await rest(ferry.url, 'GET', '/user', 'eve')).status, 200);
  await sendViaRest(ferry.url, 'frank', 'Something', { 'f.txt': 'f' }, ['x@example.org']);
  const b = await openBrowser({ headers: asUserHeaders('root') });
  try {
    await b.page.goto(`${ferry.url}/?s=admin`);
    await b.page.locator('dl.overview').waitFor();
    const all = (await rest(ferry.url, 'GET', '/user/@all', 'root')).json as unknown[];
    await b.page.waitForFunction(
      (n) => document.querySelector('dl.overview dt:nth-of-type(4) + dd')?.textContent === String(n),
      all.length,
    );
    await b.page.click('nav.tabs button:has-text("Users")');
    await b.page.locator('table.users tbody tr').first().waitFor();
    assert.is(await b.page.locator('table.users tbody tr').count(), all.length);
    assert.ok(all.length >= 4, `${all.length} accounts`);
  } finally {
    await b.close();
  }
});

test.run();
