import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { openBrowser, startFerry, ferryCli, shot, makeFile, watchProgress, rest, HEADER_SP_CONFIG, asUserHeaders } from './harness';

// Signing in with a local account, and a guest invited from the web page who then uploads.

let dir: string;
test.before(() => {
  dir = tempDir('ferry-browser-accounts-');
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('log in with a local account (wrong password refused), see the header, log out', async () => {
  const ferry = await startFerry({});
  const b = await openBrowser();
  try {
    const add = ferryCli(['user', 'add', 'alice', '--email', 'alice@example.org', '--password-stdin', '-c', ferry.configFile], 'correct horse battery\n');
    assert.is(add.code, 0, `ferry user add: ${add.stderr}`);
    await b.page.goto(`${ferry.url}/?s=transfers`);
    await b.page.locator('form.login-form').waitFor();
    await shot(b.page, 'login');
    await b.page.fill('#login-user', 'alice');
    await b.page.fill('#login-password', 'wrong password');
    await b.page.click('form.login-form button[type=submit]');
    await b.page.locator('form.login-form .error:not([hidden])').waitFor();
    assert.match((await b.page.locator('form.login-form .error').textContent()) ?? '', /wrong|password/i);
    await b.page.fill('#login-password', 'correct horse battery');
    await b.page.click('form.login-form button[type=submit]');
    await b.page.locator('#transfers-title').waitFor();
    assert.match(b.page.url(), /\?s=transfers$/, 'back on the page asked for');
    assert.match((await b.page.locator('.who .user').textContent()) ?? '', 'alice@example.org');
    const token = await b.page.getAttribute('meta[name="ferry-security-token"]', 'content');
    assert.ok(token && token.length >= 20, 'the page carries the security token');
    await b.page.click('a.logout');
    await b.page.locator('form.login-form').waitFor();
    await b.page.goto(`${ferry.url}/?s=transfers`);
    await b.page.locator('form.login-form').waitFor();
  } finally {
    await b.close();
    await ferry.stop();
  }
});

test('a guest invited from the guests page uploads under the guest rules (recipient fixed)', async () => {
  const ferry = await startFerry({ ...HEADER_SP_CONFIG });
  const owner = await openBrowser({ headers: asUserHeaders('alice') });
  const guest = await openBrowser(); // the guest has no account: only the link
  try {
    await owner.page.goto(`${ferry.url}/?s=guests`);
    await owner.page.locator('#invite-title').waitFor();
    await owner.page.fill('#guest-email', 'gus@example.org');
    await owner.page.fill('#guest-subject', 'Please send the scans');
    await owner.page.click('details.options summary');
    await owner.page.check('#gopt-can_only_send_to_me');
    await owner.page.click('form.invite button.primary');
    await owner.page.locator('form.invite .ok').waitFor();
    await owner.page.locator('table.guests td', { hasText: 'gus@example.org' }).waitFor();
    await shot(owner.page, 'guests-invited');
    const list = await rest(ferry.url, 'GET', '/guest', 'alice');
    const g = (list.json as any[]).find((x) => x.email === 'gus@example.org');
    assert.ok(g?.token, 'the guest is listed with its token');
    assert.ok(g.options.includes('can_only_send_to_me'));

    const file = makeFile(dir, 'scan.pdf', 7 * 1024 * 1024 + 5);
    await guest.page.goto(`${ferry.url}/?s=upload&vid=${g.token}`);
    await guest.page.locator('#upload-title').waitFor();
    assert.match((await guest.page.locator('.fixed-recipient').textContent()) ?? '', 'alice@example.org');
    assert.is(await guest.page.locator('#upload-recipients').count(), 0, 'no recipient field');
    await shot(guest.page, 'guest-upload');
    await guest.page.setInputFiles('#pick-files', [file.path]);
    await guest.page.fill('#upload-subject', 'Scans');
    await guest.page.click('button.primary');
    await watchProgress(guest.page, 120_000);
    await shot(guest.page, 'guest-upload-done');
    const transfers = await rest(ferry.url, 'GET', '/transfer', 'alice');
    const t = (transfers.json as any[]).find((x) => x.subject === 'Scans');
    assert.ok(t, "the guest's transfer belongs to the inviting user");
    assert.is(t.user_email, 'gus@example.org');
    assert.equal(t.files.map((f: any) => f.size), [file.size]);
    assert.equal(t.recipients.map((r: any) => r.email), ['alice@example.org']);
  } finally {
    await owner.close();
    await guest.close();
    await ferry.stop();
  }
});

test.run();
