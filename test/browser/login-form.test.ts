import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openBrowser, startFerry, addLocalUser } from './harness';

// The login form is the server's own HTML: sent before the page's script has taken it over (a slow first load
// on a busy machine), it is an ordinary form POST, and it must sign the user in as well. Under
// `Referrer-Policy: no-referrer` the browser sent it with `Origin: null`, which the login-CSRF check refused
// (403 rest_security_token_did_not_match): the cause of "the profile page offers filesender.py.ini" failing
// now and then on a fresh machine, where the script's first load was slow.

test('the login form sent before the script takes it over signs the user in and lands on the page asked for', async () => {
  const local = await startFerry({});
  const browser = await openBrowser();
  try {
    addLocalUser(local, 'dora@example.org', 'dora@example.org', 'dora password 1');
    const { page } = browser;
    // The translations are held back, so the script has not taken the form over when it is sent.
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route('**/lang?**', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${local.url}/?s=profile`);
    await page.fill('#login-user', 'dora@example.org');
    await page.fill('#login-password', 'dora password 1');
    // The form posts to its provider's path (/login/<id>: docs/architecture.md, "How to add … An identity provider").
    const answer = page.waitForResponse((r) => /\/login(\/[^/?]+)?$/.test(r.url()) && r.request().method() === 'POST');
    await page.click('form.login-form button[type=submit]');
    assert.is((await answer).status(), 303, 'an ordinary form POST from our own page is not refused');
    release();
    await page.locator('#api-title').waitFor();
    assert.match(page.url(), /\?s=profile$/);
  } finally {
    await browser.close();
    await local.stop();
  }
});

test.run();
