import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { freePort, tempDir } from '../helpers/server';
import { startOidcProvider, type OidcServer } from '../helpers/system/oidc';
import { startDirectory, type TestDirectory } from '../helpers/system/slapd';
import { makeFile, openBrowser, startFerry } from './harness';
import { axe } from './fixtures';

// Signing in through each identity provider in a real browser against dist/ferry, then sending a file: an
// OpenID provider (oidc-provider, its own sign-in pages) and a directory (slapd) side by side on the login page.
let ferry: BinaryServer;
let op: OidcServer;
let directory: TestDirectory;
let dir: string;

test.before(async () => {
  dir = tempDir('ferry-sso-files-');
  directory = await startDirectory([{ uid: 'dora', password: 'dora pw 1', mail: 'dora@example.org', cn: 'Dora' }], {});
  const opPort = await freePort();
  ferry = await startFerry({
    auth: {
      sp: [
        {
          type: 'oidc',
          id: 'sso',
          label: 'Example SSO',
          issuer: `http://127.0.0.1:${opPort}`,
          client_id: 'ferry',
          client_secret: 'browser-secret',
        },
        {
          type: 'ldap',
          id: 'dir',
          label: 'Directory',
          url: directory.url,
          bind_dn: directory.bindDn,
          bind_password: directory.bindPassword,
          user_base: `ou=people,${directory.suffix}`,
        },
      ],
    },
  });
  op = await startOidcProvider(opPort, {
    redirectUris: [`${ferry.url}/login/sso/callback`],
    postLogoutRedirectUris: [`${ferry.url}/login`],
    clientSecret: 'browser-secret',
    accounts: { olga: { email: 'olga@example.org', email_verified: true, name: 'Olga' } },
  });
});
test.after(async () => {
  await ferry?.stop();
  await op?.close();
  await directory?.close();
});

async function send(page: Page, name: string): Promise<void> {
  await page.locator('#upload-title').waitFor();
  const file = makeFile(dir, name, 200_000);
  await page.setInputFiles('#pick-files', [file.path]);
  await page.fill('#upload-recipients', 'friend@example.org');
  await page.keyboard.press('Enter');
  await page.fill('#upload-subject', name);
  await page.locator('.chips li', { hasText: 'friend@example.org' }).waitFor();
  await page.click('button.primary');
  await page.locator('#summary-title').waitFor({ timeout: 60_000 });
  assert.is(await page.locator('#summary-title').innerText(), 'Your files are uploaded');
}

test('the login page with two providers: a button and a titled form, no serious accessibility problem', async () => {
  const b = await openBrowser();
  try {
    await b.page.goto(`${ferry.url}/login`);
    await b.page.locator('a.login-button[data-provider="sso"]').waitFor();
    assert.is(await b.page.locator('a.login-button').innerText(), 'Sign in with Example SSO');
    assert.is(await b.page.locator('form.login-form h2').innerText(), 'Directory');
    const serious = (await axe(b.page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.equal(serious, []);
  } finally {
    await b.close();
  }
});

test("OpenID Connect: the button, the provider's sign-in and consent, back signed in; a file is sent", async () => {
  const b = await openBrowser();
  try {
    await b.page.goto(`${ferry.url}/`);
    await b.page.click('a.login-button[data-provider="sso"]');
    await b.page.locator('input[name="login"]').waitFor();
    await b.page.fill('input[name="login"]', 'olga');
    await b.page.fill('input[name="password"]', 'anything');
    await b.page.click('button[type="submit"]');
    await b.page.locator('button[type="submit"]').waitFor(); // consent
    await b.page.click('button[type="submit"]');
    await send(b.page, 'oidc-report.pdf');
  } finally {
    await b.close();
  }
});

test("LDAP: the directory's form signs in; a file is sent", async () => {
  const b = await openBrowser();
  try {
    await b.page.goto(`${ferry.url}/`);
    await b.page.locator('form.login-form[data-provider="dir"]').waitFor();
    await b.page.fill('#login-user', 'dora');
    await b.page.fill('#login-password', 'dora pw 1');
    await b.page.click('form.login-form[data-provider="dir"] button[type=submit]');
    await send(b.page, 'ldap-report.pdf');
  } finally {
    await b.close();
  }
});

test.run();
