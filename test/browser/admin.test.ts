import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { openBrowser, startFerry, ferryCli, shot, makeFile, BrowserSession, addLocalUser } from './harness';

// Admins need no shell: users added, reset (password shown once), promoted, demoted and removed from the
// Users tab; quotas set there and met on the upload page; storage and 30 days of usage drawn as charts; one's
// own password changed on the profile. Local accounts (the login form), the built binary, Chromium.

let dir: string;
let ferry: BinaryServer;
const opened: BrowserSession[] = [];

test.before(async () => {
  dir = tempDir('ferry-browser-admin-');
  ferry = await startFerry({});
  for (const [id, pw] of [
    ['root', 'root password 1'],
    ['alice', 'alice password'],
  ]) {
    addLocalUser(ferry, id, `${id}@example.org`, pw);
  }
  assert.is(ferryCli(['admin', 'add', 'root', '-c', ferry.configFile]).code, 0);
});
test.after(async () => {
  for (const b of opened) await b.close().catch(() => undefined);
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function signedIn(user: string, password: string, width = 1280): Promise<BrowserSession> {
  const b = await openBrowser({ width });
  opened.push(b);
  await login(b.page, user, password);
  await b.page.locator('#upload-title').waitFor();
  return b;
}

async function login(page: Page, user: string, password: string): Promise<void> {
  await page.goto(`${ferry.url}/login`);
  await page.fill('#login-user', user);
  await page.fill('#login-password', password);
  await page.click('form.login-form button[type=submit]');
}

async function usersTab(page: Page): Promise<void> {
  await page.goto(`${ferry.url}/?s=admin`);
  await page.click('nav.tabs button:has-text("Users")');
  await page.locator('table.users tr[data-user="root"]').waitFor();
}

/** Accepts the next confirm() the page asks. */
function acceptNextConfirm(page: Page): void {
  page.once('dialog', (d) => void d.accept());
}

/** The password in the one-time dialog, which is then closed and gone from the page. */
async function takePassword(page: Page, shotName?: string): Promise<string> {
  const input = page.locator('dialog.secret #secret-value');
  await input.waitFor();
  const password = await input.inputValue();
  assert.ok(password.length >= 12, password);
  if (shotName) await shot(page, shotName);
  await page.click('dialog.secret button:has-text("Close")');
  await page.locator('dialog.secret').waitFor({ state: 'detached' });
  assert.not.ok(
    (await page.content()).includes(password),
    'the password is gone from the page once the dialog is closed',
  );
  return password;
}

let root: BrowserSession;
let davePassword = '';

test('add a user: the password is shown once, with a copy button, and signing in with it works', async () => {
  root = await signedIn('root', 'root password 1');
  await root.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ferry.url });
  const page = root.page;
  await usersTab(page);
  // No withdrawing one's own admin, no removing oneself.
  const own = page.locator('tr[data-user="root"]');
  assert.is(await own.locator('button:has-text("Withdraw admin"), button:has-text("Remove")').count(), 0);
  await page.fill('#new-user-id', 'dave');
  await page.fill('#new-user-email', 'dave@example.org');
  await page.click('form.add-user button[type=submit]');
  await page.locator('dialog.secret #secret-value').waitFor();
  await page.click('dialog.secret button.copy');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  davePassword = await takePassword(page, 'admin-user-created');
  assert.is(copied, davePassword);
  await page.locator('tr[data-user="dave"] .role', { hasText: 'User' }).waitFor();
  await shot(page, 'admin-users-desktop');
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, 'admin-users-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  const dave = await signedIn('dave', davePassword);
  await dave.close();
});

test('reset a password: a new one, shown once; the old one no longer signs in, the new one does', async () => {
  const page = root.page;
  acceptNextConfirm(page);
  await page.click('button[aria-label="Reset password: dave"]');
  const fresh = await takePassword(page, 'admin-password-reset');
  assert.is.not(fresh, davePassword);
  const old = await openBrowser();
  opened.push(old);
  await login(old.page, 'dave', davePassword);
  await old.page.locator('form.login-form .error:not([hidden])').waitFor();
  davePassword = fresh;
  const dave = await signedIn('dave', davePassword);
  await dave.close();
});

test('grant and withdraw admin: the role changes and so does what the user may open', async () => {
  const page = root.page;
  await page.click('button[aria-label="Make admin: dave"]');
  await page.locator('tr[data-user="dave"] .role', { hasText: 'Administrator' }).waitFor();
  const dave = await signedIn('dave', davePassword);
  await dave.page.goto(`${ferry.url}/?s=admin`);
  await dave.page.locator('nav.tabs').waitFor();
  await page.click('button[aria-label="Withdraw admin: dave"]');
  await page.locator('tr[data-user="dave"] .role', { hasText: 'User' }).waitFor();
  const refused = await dave.page.goto(`${ferry.url}/?s=admin`);
  assert.is(refused?.status(), 403);
  await dave.close();
});

test('quotas: the default quota set by the admin is shown on the upload page and refuses a transfer past it; an override lets it through', async () => {
  const page = root.page;
  await page.fill('#user-quota', '1');
  await page.click('form.quota-settings button[type=submit]');
  await page.locator('form.quota-settings .ok').waitFor();
  await shot(page, 'admin-quotas');
  const dave = await signedIn('dave', davePassword);
  await dave.page.locator('.quota-use', { hasText: /You use 0\sB of your 1\.0\sMB quota/ }).waitFor();
  const big = makeFile(dir, 'big.bin', 2_000_000);
  await dave.page.setInputFiles('#pick-files', big.path);
  await dave.page.fill('#upload-recipients', 'rita@example.org');
  await dave.page.keyboard.press('Enter');
  await dave.page.click('button.primary');
  const error = dave.page.locator('form.upload-form .error');
  await error.waitFor();
  assert.match(
    (await error.textContent()) ?? '',
    /This transfer \(2\.0\sMB\) would exceed your quota: 1\.0\sMB left of 1\.0\sMB/,
  );
  await shot(dave.page, 'upload-quota-refused-desktop');
  await dave.page.setViewportSize({ width: 390, height: 844 });
  await shot(dave.page, 'upload-quota-refused-phone');
  await dave.page.setViewportSize({ width: 1280, height: 800 });
  // dave's own quota: 5 MB
  await page.reload();
  await page.click('nav.tabs button:has-text("Users")');
  await page.fill('#quota-dave', '5');
  await page.click('button[aria-label="Set: dave"]');
  await page.locator('tr[data-user="dave"] .quota-now', { hasText: /5\.0\sMB/ }).waitFor();
  await dave.page.click('button.primary');
  await dave.page.locator('#summary-title').waitFor({ timeout: 60_000 });
  await dave.page.goto(`${ferry.url}/?s=profile`);
  await dave.page.locator('.quota-use', { hasText: /You use 2\.0\sMB of your 5\.0\sMB quota/ }).waitFor();
  await dave.close();
});

test('the overview: storage used and free, and the charts drawn with the data', async () => {
  const page = root.page;
  await page.goto(`${ferry.url}/?s=admin`);
  await page.locator('.storage-used').waitFor();
  assert.is((await page.locator('.storage-used').textContent())?.trim(), '2.0\u00a0MB');
  assert.match((await page.locator('.storage-free').textContent()) ?? '', /\d.* of .*\d/);
  for (const id of ['chart-transfers', 'chart-bytes', 'chart-storage', 'chart-senders']) {
    const bars = Number(await page.locator(`figure[aria-labelledby="${id}-title"] svg`).getAttribute('data-bars'));
    assert.ok(bars >= 1, `${id} draws bars`);
    assert.ok((await page.locator(`figure[aria-labelledby="${id}-title"] svg rect.bar`).count()) >= 1, id);
  }
  // The figures are in the page as text too (the tables screen readers read).
  const today = page.locator('figure[aria-labelledby="chart-transfers-title"] table tbody tr').last();
  assert.match((await today.locator('td').textContent()) ?? '', /^[1-9]/);
  assert.match((await page.locator('figure[aria-labelledby="chart-senders-title"] table').textContent()) ?? '', /dave/);
  await shot(page, 'admin-charts-desktop');
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, 'admin-charts-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('remove a user: asked first (what happens to the transfers is said), then gone; signing in fails', async () => {
  const page = root.page;
  await usersTab(page);
  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    void d.accept();
  });
  await page.click('button[aria-label="Remove: dave"]');
  await page.locator('tr[data-user="dave"]').waitFor({ state: 'detached' });
  assert.match(asked, /stay available to their recipients until they expire/);
  const b = await openBrowser();
  opened.push(b);
  await login(b.page, 'dave', davePassword);
  await b.page.locator('form.login-form .error:not([hidden])').waitFor();
});

test("own password: a wrong current one is refused; the change signs out one's other sessions; the new one works", async () => {
  const other = await signedIn('root', 'root password 1');
  const page = root.page;
  await page.goto(`${ferry.url}/?s=profile`);
  await page.fill('#pw-current', 'not it');
  await page.fill('#pw-new', 'root password 2');
  await page.fill('#pw-again', 'root password 2');
  await page.click('form.password-change button[type=submit]');
  await page.locator('form.password-change .error', { hasText: 'current password is not right' }).waitFor();
  await page.fill('#pw-current', 'root password 1');
  await page.click('form.password-change button[type=submit]');
  await page.locator('form.password-change .ok').waitFor();
  await shot(page, 'profile-password-changed');
  await page.reload();
  await page.locator('#pw-current').waitFor(); // this session stays
  await other.page.goto(`${ferry.url}/?s=profile`);
  await other.page.locator('form.login-form').waitFor(); // the other one is signed out
  await login(other.page, 'root', 'root password 2');
  await other.page.locator('#upload-title').waitFor();
});

test.run();
