import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BinaryServer } from '../helpers/binary';
import { openBrowser, startFerry, shot, HEADER_SP_CONFIG, asUserHeaders, BrowserSession } from './harness';

// Every page in a real browser: signed in through the header SP, keyboard use, phone width, no CSP errors.

let ferry: BinaryServer;
let b: BrowserSession;
test.before(async () => {
  ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'] });
  b = await openBrowser({ headers: asUserHeaders('root') });
});
test.after(async () => {
  await b?.close();
  await ferry?.stop();
});

test('a header-SP user lands signed in; every page mounts its view with no script or CSP error', async () => {
  const { page } = b;
  const pages: [string, string][] = [
    ['', '#upload-title'],
    ['?s=transfers', '#transfers-title'],
    ['?s=guests', '#invite-title'],
    ['?s=profile', '#profile-title'],
    ['?s=admin', '#admin-title'],
  ];
  for (const [q, heading] of pages) {
    await page.goto(`${ferry.url}/${q}`);
    await page.locator(heading).waitFor();
    await page.waitForLoadState('networkidle');
    await shot(page, `page-${q.replace('?s=', '') || 'upload'}`);
  }
  assert.match((await page.locator('.who .user').textContent()) ?? '', 'root@example.org');
  assert.equal(
    b.errors.filter((e) => !/status of 404/.test(e)),
    [],
    'no script errors or CSP violations',
  );
});

test('the language switch changes the page language and keeps it', async () => {
  const { page } = b;
  await page.goto(`${ferry.url}/?s=transfers`);
  await page.selectOption('#lang-select', 'de');
  await page.waitForURL(/lang=de/);
  await page.locator('#transfers-title').waitFor();
  assert.is(await page.getAttribute('html', 'lang'), 'de');
  assert.match((await page.locator('nav a[aria-current="page"]').textContent()) ?? '', /Übertragungen|transfers/i);
  await page.goto(`${ferry.url}/`);
  assert.is(await page.getAttribute('html', 'lang'), 'de');
  assert.is(await page.locator('button[type="submit"].primary').textContent(), 'Senden');
  await page.selectOption('#lang-select', 'en');
  await page.waitForURL(/lang=en/);
});

test('the upload form is usable with the keyboard alone, with labelled controls', async () => {
  const { page } = b;
  await page.goto(`${ferry.url}/`);
  await page.locator('#upload-title').waitFor();
  // Every form control has an accessible name.
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('main input:not([type=hidden]), main select, main textarea, main button')]
      .filter((el) => {
        const e = el as HTMLInputElement;
        const byLabel = e.labels && e.labels.length > 0;
        return !byLabel && !e.getAttribute('aria-label') && !(e.textContent ?? '').trim() && !e.closest('label');
      })
      .map((el) => el.outerHTML.slice(0, 80)),
  );
  assert.equal(unlabelled, []);
  // Tab reaches the recipients field; typing an address and Enter adds it as a chip.
  await page.focus('#upload-recipients');
  await page.keyboard.type('first@example.org');
  await page.keyboard.press('Enter');
  await page.keyboard.type('not-an-address');
  await page.keyboard.press('Enter');
  assert.match((await page.locator('.chips').textContent()) ?? '', 'first@example.org');
  assert.match((await page.locator('.recipients .error').textContent()) ?? '', 'not-an-address');
  // Submitting with no files says so instead of sending.
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.locator('button.primary').focus();
  await page.keyboard.press('Enter');
  assert.match((await page.locator('form .error[role=alert]').last().textContent()) ?? '', /file/i);
  let tabs = 0;
  await page.focus('body');
  while (tabs++ < 40) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.id === 'upload-subject')) break;
  }
  assert.ok(tabs < 40, 'the subject field is reachable with Tab');
});

test('phone width: no page scrolls sideways', async () => {
  const phone = await openBrowser({ headers: asUserHeaders('root'), width: 360 });
  try {
    for (const q of ['', '?s=transfers', '?s=guests', '?s=profile', '?s=admin']) {
      await phone.page.goto(`${ferry.url}/${q}`);
      await phone.page.locator('main h1').first().waitFor();
      const over = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(over <= 0, `${q || 'upload'} overflows by ${over}px`);
      await shot(phone.page, `phone-${q.replace('?s=', '') || 'upload'}`);
    }
  } finally {
    await phone.close();
  }
});

test.run();
