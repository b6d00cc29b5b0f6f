import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../helpers/server';
import {
  openBrowser,
  startFerry,
  shot,
  makeFile,
  watchProgress,
  rest,
  HEADER_SP_CONFIG,
  asUserHeaders,
  addLocalUser,
} from './harness';
import { mailSink } from './fixtures';

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
    addLocalUser(ferry, 'alice', 'alice@example.org', 'correct horse battery');
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
    // "Send me the audit log" is a GET that sends mail: the page sends the session's security token with it.
    const created = await b.page.evaluate(async (csrf) => {
      const body = {
        files: [{ name: 'a.txt', size: 1 }],
        recipients: ['r@example.org'],
        from: 'alice@example.org',
        expires: Math.floor(Date.now() / 1000) + 86400,
      };
      const r = await fetch('/transfer', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Ferry-Security-Token': csrf! },
        body: JSON.stringify(body),
      });
      return r.status;
    }, token);
    assert.is(created, 201);
    await b.page.goto(`${ferry.url}/?s=transfers`);
    await b.page.locator('table.transfers tbody tr button', { hasText: 'Details' }).first().click();
    await b.page.locator('button', { hasText: 'Send me the audit log by e-mail' }).click();
    await b.page.getByText('The audit log is on its way to your mailbox.').waitFor();
    await b.page.click('a.logout');
    await b.page.locator('form.login-form').waitFor();
    await b.page.goto(`${ferry.url}/?s=transfers`);
    await b.page.locator('form.login-form').waitFor();
  } finally {
    await b.close();
    await ferry.stop();
  }
});

test('invite a guest without the invitation mail: the page gives the upload link to copy; the guest page says who invited, what for, where the files go and for how long; the guest uploads', async () => {
  const sink = await mailSink(dir);
  const ferry = await startFerry({ ...HEADER_SP_CONFIG, mail: sink.config });
  const owner = await openBrowser({ headers: asUserHeaders('alice') });
  const guest = await openBrowser(); // the guest has no account: only the link
  try {
    await owner.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ferry.url });
    await owner.page.goto(`${ferry.url}/?s=guests`);
    await owner.page.locator('#invite-title').waitFor();
    await owner.page.fill('#guest-email', 'gus@example.org');
    await owner.page.fill('#guest-subject', 'Please send the scans');
    await owner.page.fill('#guest-message', 'The signed pages, all of them.');
    await owner.page.click('details.options summary');
    assert.ok(
      await owner.page.isChecked('#gopt-email_guest_created'),
      '"Send the invitation e-mail" starts ticked, as the server would have it',
    );
    await owner.page.uncheck('#gopt-email_guest_created');
    await owner.page.check('#gopt-can_only_send_to_me');
    await owner.page.click('form.invite button.primary');
    await owner.page.locator('form.invite .ok').waitFor();
    assert.match(await owner.page.locator('form.invite .ok').innerText(), 'No e-mail was sent');
    await owner.page.locator('table.guests td', { hasText: 'gus@example.org' }).waitFor();
    const list = await rest(ferry.url, 'GET', '/guest', 'alice');
    const g = (list.json as any[]).find((x) => x.email === 'gus@example.org');
    assert.ok(g?.token, 'the guest is listed with its token');
    assert.ok(g.options.includes('can_only_send_to_me'));
    assert.not.ok(g.options.includes('email_guest_created'), 'the unticked box reached the server');
    assert.is(await owner.page.inputValue('#guest-upload-link'), g.upload_url);
    await owner.page.locator('form.invite .upload-link button.copy').click();
    assert.is(await owner.page.evaluate(() => navigator.clipboard.readText()), g.upload_url);
    await shot(owner.page, 'guests-invited-no-mail');

    // A second invitation, box ticked again: that one is mailed (and, mail being sent in order, proves the first was not).
    await owner.page.fill('#guest-email', 'hana@example.org');
    await owner.page.check('#gopt-email_guest_created');
    await owner.page.uncheck('#gopt-can_only_send_to_me');
    await owner.page.click('form.invite button.primary');
    // No mail transport here (the sink is the built-in inbox): the page says the invitation was kept, not sent.
    await owner.page
      .locator('form.invite .ok', {
        hasText: 'The invitation for hana@example.org was kept in the built-in inbox; not delivered',
      })
      .waitFor();
    let mails: { to: string }[] = [];
    for (let i = 0; i < 100 && !mails.some((m) => m.to.includes('hana@example.org')); i++) {
      await new Promise((r) => setTimeout(r, 100));
      mails = await sink.mails();
    }
    assert.ok(
      mails.some((m) => m.to.includes('hana@example.org')),
      'the ticked invitation was mailed',
    );
    assert.not.ok(
      mails.some((m) => m.to.includes('gus@example.org')),
      'the unticked one was not',
    );

    const file = makeFile(dir, 'scan.pdf', 7 * 1024 * 1024 + 5);
    await guest.page.goto(g.upload_url);
    await guest.page.locator('#upload-title').waitFor();
    assert.is(await guest.page.locator('.invited-by').innerText(), 'alice@example.org invited you to send files.');
    assert.is(await guest.page.locator('.invitation-message h2').innerText(), 'Please send the scans');
    assert.is(await guest.page.locator('.invitation-message .message').innerText(), 'The signed pages, all of them.');
    assert.is(await guest.page.locator('.files-go-to').innerText(), 'Your files go to alice@example.org.');
    const valid = (await guest.page.locator('.valid-until').innerText()).replace(/\u00a0/g, ' ');
    // Calendar days from today, as the date field counts them ("at most 20 days from today").
    const midnight = (ms: number) => new Date(new Date(ms).toDateString()).getTime();
    const days = Math.round((midnight(g.expires.raw * 1000) - midnight(Date.now())) / 86400_000);
    assert.match(
      valid,
      new RegExp(`^This invitation is valid until \\d{1,2} [A-Z][a-z]{2} \\d{4} \\(${days} days? left\\)\\.$`),
    );
    assert.is(await guest.page.locator('#upload-recipients').count(), 0, 'no recipient field');
    await shot(guest.page, 'guest-upload');
    await guest.page.setInputFiles('#pick-files', [file.path]);
    await guest.page.fill('#upload-subject', 'Scans');
    await guest.page.click('button.primary');
    await watchProgress(guest.page, 120_000);
    // The guest's summary follows the mail too (the guest may read its own transfer): queued, then kept in the inbox.
    await guest.page
      .locator('.links li', { hasText: 'alice@example.org' })
      .locator('.delivery-kept')
      .waitFor({ timeout: 20_000 });
    assert.is(
      await guest.page.locator('.summary .mail-status').innerText(),
      'The e-mail was kept in the built-in inbox; not delivered (no mail server is configured). Send the links below yourself.',
    );
    await shot(guest.page, 'guest-upload-done');
    const transfers = await rest(ferry.url, 'GET', '/transfer', 'alice');
    const t = (transfers.json as any[]).find((x) => x.subject === 'Scans');
    assert.ok(t, "the guest's transfer belongs to the inviting user");
    assert.is(t.user_email, 'gus@example.org');
    assert.equal(
      t.files.map((f: any) => f.size),
      [file.size],
    );
    assert.equal(
      t.recipients.map((r: any) => r.email),
      ['alice@example.org'],
    );

    // A guest who may send to anyone is told that, and gets the recipient field with the inviter in it.
    const h = (await rest(ferry.url, 'GET', '/guest', 'alice')).json.find((x: any) => x.email === 'hana@example.org');
    await guest.page.goto(h.upload_url);
    await guest.page.locator('#upload-recipients').waitFor();
    assert.is(
      await guest.page.locator('.files-go-to').innerText(),
      'Your files go to alice@example.org, who invited you, and to anyone else you add below.',
    );
    assert.equal(await guest.page.locator('.chips li > span').allInnerTexts(), ['alice@example.org']);
    assert.is(await guest.page.locator('.invitation-message').count(), 0, 'no empty message box');
  } finally {
    await owner.close();
    await guest.close();
    await ferry.stop();
  }
});

test.run();
