import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { tempDir } from '../helpers/server';
import { axe } from './fixtures';
import { openBrowser, startFerry, shot, addLocalUser } from './harness';

// The first account's address is a placeholder (admin@localhost.localdomain), which every mail it sends would
// come from. Asked for at the first sign-in; then changed from the profile, and by an admin for a user.

async function login(page: Page, url: string, user: string, password: string) {
  await page.goto(`${url}/login`);
  await page.fill('#login-user', user);
  await page.fill('#login-password', password);
  await page.click('form.login-form button[type=submit]');
  await page.locator('#upload-title').waitFor();
}

test('the placeholder address is asked for at sign-in; a user changes theirs in the profile, an admin a user’s in the users table', async () => {
  const dir = tempDir('ferry-browser-email-');
  const ferry = await startFerry({});
  const b = await openBrowser();
  try {
    const password = /created the first account: user "admin", password (\S+) /.exec(ferry.output())?.[1];
    assert.ok(password, ferry.output());
    const { page } = b;
    await login(page, ferry.url, 'admin', password!);
    const prompt = page.locator('section.email-prompt');
    await prompt.waitFor();
    assert.match(await prompt.innerText(), "Your account's address is still admin@localhost.localdomain");
    assert.is(await page.locator('#prompt-email').inputValue(), '', 'the placeholder is not offered as a value');
    const serious = (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.equal(serious, []);
    await shot(page, 'email-prompt');
    await page.fill('#prompt-email', 'not-an-address');
    await page.click('section.email-prompt button[type=submit]');
    await prompt.locator('.error', { hasText: '"not-an-address" is not a valid e-mail address.' }).waitFor();
    await page.fill('#prompt-email', 'ops@example.org');
    await page.click('section.email-prompt button[type=submit]');
    await page.locator('header .who .user', { hasText: 'ops@example.org' }).waitFor();
    await page.locator('#upload-title').waitFor();
    assert.is(await page.locator('section.email-prompt').count(), 0, 'asked once');

    // The profile: one's own address.
    await page.goto(`${ferry.url}/?s=profile`);
    const mine = page.locator('#profile-email');
    await mine.waitFor();
    assert.is(await mine.inputValue(), 'ops@example.org');
    await mine.fill('ops@example.org, it@example.org');
    // Saving reloads the page (the header and the sender's address come from the server): wait for that
    // reload, or it interrupts the next navigation.
    await Promise.all([page.waitForEvent('load'), page.click('form.email-form button[type=submit]')]);
    await page.waitForURL(/s=profile/);
    await page.locator('#profile-email').waitFor();
    assert.is(await page.locator('#profile-email').inputValue(), 'ops@example.org, it@example.org');

    // An admin sets a user's address in the users table.
    addLocalUser(ferry, 'dave', 'dave@old.example', 'dave password 1');
    await page.goto(`${ferry.url}/?s=admin`);
    await page.click('nav.tabs button:has-text("Users")');
    const field = page.locator('tr[data-user="dave"] form.email-form input');
    await field.waitFor();
    assert.is(await field.inputValue(), 'dave@old.example');
    assert.is(await field.getAttribute('id'), 'user-dave-email');
    assert.is(await page.locator('label[for="user-dave-email"]').innerText(), 'E-mail of dave');
    await field.fill('dave@new.example');
    await page.locator('tr[data-user="dave"] form.email-form button[type=submit]').click();
    await page.locator('tr[data-user="dave"] .ok', { hasText: 'Saved.' }).waitFor();
    await shot(page, 'email-admin-users');
    const dave = await openBrowser();
    try {
      await login(dave.page, ferry.url, 'dave', 'dave password 1');
      await dave.page.locator('header .who .user', { hasText: 'dave@new.example' }).waitFor();
      assert.is(await dave.page.locator('section.email-prompt').count(), 0, 'a real address is not asked for');
    } finally {
      await dave.close();
    }
  } finally {
    await b.close();
    await ferry.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
