import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import {
  openBrowser,
  startFerry,
  ferryCli,
  shot,
  rest,
  HEADER_SP_CONFIG,
  asUserHeaders,
  BrowserSession,
  addLocalUser,
} from './harness';
import { axe, sendViaRest } from './fixtures';

// Every page checked by axe-core inside the page, at a desktop and a phone size, with a screenshot of each
// under test/artifacts/: no serious or critical violation anywhere.

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Checks the page at both sizes: serious and critical violations fail, the rest are printed. */
async function checkPage(page: Page, name: string, ready: () => Promise<unknown>): Promise<string[]> {
  const problems: string[] = [];
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await ready();
    await page.waitForTimeout(150); // layout settles after the resize
    const found = await axe(page);
    for (const v of found) {
      const line = `${name} (${size.name}): ${v.impact} ${v.id}: ${v.help} — ${v.nodes.join(', ')}`;
      if (v.impact === 'serious' || v.impact === 'critical') problems.push(line);
      else console.log(`axe, not failing: ${line}`);
    }
    await shot(page, `${name}-${size.name}`);
  }
  return problems;
}

let ferry: BinaryServer;
let user: BrowserSession;
const problems: string[] = [];
test.before(async () => {
  ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'] });
  user = await openBrowser({ headers: asUserHeaders('root') });
});
test.after(async () => {
  await user?.close();
  await ferry?.stop();
});

test("a signed-in user's pages: upload, transfers, guests, admin, profile", async () => {
  const t = await sendViaRest(
    ferry.url,
    'root',
    'Site photos',
    { 'a.jpg': 'x'.repeat(5000), 'b.jpg': 'y'.repeat(7000), 'notes.txt': 'hello' },
    ['anna@example.org'],
  );
  await rest(ferry.url, 'POST', '/guest', 'root', {
    recipient: 'gus@example.org',
    from: 'root@example.org',
    subject: 'Scans please',
    expires: Math.floor(Date.now() / 1000) + 5 * 86400,
  });
  const { page } = user;
  await page.goto(`${ferry.url}/`);
  await page.setInputFiles('#pick-files', {
    name: 'report.pdf',
    mimeType: 'application/pdf',
    buffer: Buffer.alloc(1234),
  });
  problems.push(...(await checkPage(page, 'page-upload', () => page.locator('#upload-title').waitFor())));
  await page.goto(`${ferry.url}/?s=transfers`);
  await page.locator('table.transfers button', { hasText: 'Details' }).first().click();
  problems.push(
    ...(await checkPage(page, 'page-transfers', () => page.locator(`#details-${t.id} table.audit`).waitFor())),
  );
  await page.goto(`${ferry.url}/?s=guests`);
  problems.push(...(await checkPage(page, 'page-guests', () => page.locator('table.guests').waitFor())));
  await page.goto(`${ferry.url}/?s=admin`);
  problems.push(...(await checkPage(page, 'page-admin', () => page.locator('.storage-used').waitFor())));
  await page.locator('figure[aria-labelledby="chart-transfers-title"] svg rect.bar').first().waitFor();
  await page.click('nav.tabs button:has-text("All transfers")');
  problems.push(...(await checkPage(page, 'page-admin-transfers', () => page.locator('table.transfers').waitFor())));
  await page.click('nav.tabs button:has-text("Users")');
  problems.push(
    ...(await checkPage(page, 'page-admin-users', () => page.locator('table.users tr[data-user="root"]').waitFor())),
  );
  await page.goto(`${ferry.url}/?s=profile`);
  problems.push(...(await checkPage(page, 'page-profile', () => page.locator('#remote-config').waitFor())));
  // No mail.transport here: the admin's notice is on every page above, and the built-in inbox holds the mail.
  assert.ok(await page.locator('aside.site-notice').isVisible(), 'the admin sees the built-in inbox notice');
  await page.goto(`${ferry.url}/?s=mail-sink`);
  problems.push(
    ...(await checkPage(page, 'page-mail-inbox', () => page.locator('table.mail-list td').first().waitFor())),
  );
  await page.locator('table.mail-list a').first().click();
  problems.push(...(await checkPage(page, 'page-mail-message', () => page.locator('pre.mail-text').waitFor())));
  // Signed in through the organisation (header service provider): no password of ferry's to change.
  assert.is(await page.locator('#pw-current').count(), 0);
});

test("a recipient's download page and a guest's upload page", async () => {
  const t = await sendViaRest(
    ferry.url,
    'root',
    'For the recipient',
    { 'plan.pdf': 'p'.repeat(3000), 'annex.csv': 'a,b\n' },
    ['rita@example.org'],
  );
  const g = await rest(ferry.url, 'POST', '/guest', 'root', {
    recipient: 'gwen@example.org',
    from: 'root@example.org',
    subject: 'The contract',
    message: 'Please send the signed copy.',
    options: ['can_only_send_to_me'],
    expires: Math.floor(Date.now() / 1000) + 5 * 86400,
  });
  assert.is(g.status, 201);
  const anon = await openBrowser();
  try {
    await anon.page.goto(t.recipients[0].download_url);
    problems.push(
      ...(await checkPage(anon.page, 'page-download', () => anon.page.locator('form.download-form').waitFor())),
    );
    await anon.page.goto(g.json.upload_url);
    problems.push(
      ...(await checkPage(anon.page, 'page-guest-upload', () => anon.page.locator('#upload-title').waitFor())),
    );
  } finally {
    await anon.close();
  }
});

test('the login page (local accounts)', async () => {
  const local = await startFerry({});
  const b = await openBrowser();
  try {
    addLocalUser(local, 'alice', 'alice@example.org', 'correct horse battery');
    await b.page.goto(`${local.url}/`);
    problems.push(...(await checkPage(b.page, 'page-login', () => b.page.locator('form.login-form').waitFor())));
    // The admin's views of local accounts: the Users tab with its add form, the one-time password dialog,
    // and the profile's password form.
    assert.is(ferryCli(['admin', 'add', 'alice', '-c', local.configFile]).code, 0);
    await b.page.fill('#login-user', 'alice');
    await b.page.fill('#login-password', 'correct horse battery');
    await b.page.click('form.login-form button[type=submit]');
    await b.page.locator('#upload-title').waitFor();
    await b.page.goto(`${local.url}/?s=admin`);
    await b.page.click('nav.tabs button:has-text("Users")');
    problems.push(
      ...(await checkPage(b.page, 'page-admin-users-local', () => b.page.locator('form.add-user').waitFor())),
    );
    await b.page.fill('#new-user-id', 'bert');
    await b.page.fill('#new-user-email', 'bert@example.org');
    await b.page.click('form.add-user button[type=submit]');
    problems.push(
      ...(await checkPage(b.page, 'page-admin-password-dialog', () =>
        b.page.locator('dialog.secret #secret-value').waitFor(),
      )),
    );
    await b.page.goto(`${local.url}/?s=profile`);
    problems.push(...(await checkPage(b.page, 'page-profile-local', () => b.page.locator('#pw-current').waitFor())));
  } finally {
    await b.close();
    await local.stop();
  }
});

test('axe found nothing serious or critical on any page', () => {
  assert.equal(problems, []);
});

test.run();
