import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFerry, openBrowser, shot, rest, HEADER_SP_CONFIG, asUserHeaders } from './harness';
import { sendViaRest } from './fixtures';

// `ferry serve` on every address without base_url mails links naming localhost, dead for every recipient.
// It says so at start-up and to the admins on every page, and an admin sets the public address from the
// pages; the links follow at once.

test('listening on every address without base_url: warned at start-up and on the admins’ pages; an admin sets the public address and the links follow', async () => {
  const ferry = await startFerry({
    ...HEADER_SP_CONFIG,
    admin: ['root'],
    listen: { host: '0.0.0.0', port: 0 },
    base_url: undefined,
  });
  const port = new URL(ferry.url).port;
  const url = `http://127.0.0.1:${port}`;
  const admin = await openBrowser({ headers: asUserHeaders('root') });
  const user = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    assert.match(
      ferry.output(),
      `warning: listening on every address, but links in mails name http://localhost:${port}, which no other machine reaches`,
    );
    assert.is((await rest(url, 'GET', '/info', 'alice')).json.url, `http://localhost:${port}`);

    await admin.page.goto(`${url}/?s=transfers`);
    const notice = admin.page.locator('aside.public-address-notice');
    assert.is(
      (await notice.innerText()).trim(),
      `Links in mails name http://localhost:${port}, which only this machine reaches: no public address is set. Set the public address`,
    );
    await user.page.goto(`${url}/`);
    await user.page.locator('#upload-title').waitFor();
    assert.is(await user.page.locator('aside.public-address-notice').count(), 0, 'users are not told');

    await notice.locator('a').click();
    const field = admin.page.locator('#public-address-url');
    await field.waitFor();
    // Empty, as its hint says ("Leave it empty to use the one in the configuration"); the address in use beside it.
    assert.is(await field.inputValue(), '');
    assert.is(
      await admin.page.locator('form.public-address .public-address-in-use').innerText(),
      `In use now: http://localhost:${port}`,
    );
    await field.fill('files.example.org');
    await admin.page.click('form.public-address button[type=submit]');
    await admin.page.locator('form.public-address .error', { hasText: 'starting with http:// or https://' }).waitFor();
    await field.fill(`${url}/`);
    await admin.page.click('form.public-address button[type=submit]');
    await admin.page.locator('form.public-address .ok', { hasText: 'Saved.' }).waitFor();
    await shot(admin.page, 'public-address-set');
    await admin.page.reload();
    await admin.page.locator('#public-address-url').waitFor();
    assert.is(await admin.page.locator('aside.public-address-notice').count(), 0, 'the notice is gone');
    assert.is(await admin.page.locator('#public-address-url').inputValue(), url);

    assert.is((await rest(url, 'GET', '/info', 'alice')).json.url, url);
    const t = await sendViaRest(url, 'alice', 'Links', { 'a.txt': 'a' }, ['rita@example.org']);
    assert.ok(t.recipients[0].download_url.startsWith(`${url}/?s=download&token=`), t.recipients[0].download_url);
  } finally {
    await admin.close();
    await user.close();
    await ferry.stop();
  }
});

test.run();
