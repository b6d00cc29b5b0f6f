import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../helpers/server';
import { addressOf, startScriptedSmtp, type ScriptedSmtp } from '../helpers/mail';
import { openBrowser, startFerry, shot, makeFile, HEADER_SP_CONFIG, asUserHeaders } from './harness';
import { axe } from './fixtures';

// Mail as the people using the pages see it: the admins' notice while mail is kept in the built-in inbox, the
// upload summary saying "queued" until the queue has sent it, and on the transfer page each recipient's
// delivery (deferred or bounced, with the mail server's answer) and "Send again". Delivery fails for real: a
// scripted SMTP server on loopback answers 450 and 550, then accepts.

let dir: string;
test.before(() => {
  dir = tempDir('ferry-browser-mail-');
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

const NOTICE = 'Mail is kept in the built-in inbox, not delivered: configure mail.transport.';

test('with no mail transport, admins see the built-in inbox notice on every page, linking to the inbox; users do not', async () => {
  const ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'] });
  const admin = await openBrowser({ headers: asUserHeaders('root') });
  const user = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    for (const s of ['', '?s=transfers', '?s=guests', '?s=profile', '?s=admin', '?s=mail-sink']) {
      await admin.page.goto(`${ferry.url}/${s}`);
      const notice = admin.page.locator('aside.site-notice');
      assert.ok(await notice.isVisible(), `notice on "${s}"`);
      assert.is((await notice.innerText()).replace(/\s+/g, ' ').trim(), `${NOTICE} Open the inbox`);
      assert.is(await notice.locator('code').innerText(), 'mail.transport');
    }
    await admin.page.goto(`${ferry.url}/?s=transfers&lang=de`);
    assert.match(
      await admin.page.locator('aside.site-notice').innerText(),
      'E-Mails werden im eingebauten Postfach aufbewahrt, nicht zugestellt: konfigurieren Sie mail.transport.',
    );
    await admin.page.goto(`${ferry.url}/?s=transfers&lang=fr`);
    assert.match(
      await admin.page.locator('aside.site-notice').innerText(),
      'Les e-mails sont conservés dans la boîte de réception intégrée, pas envoyés : configurez mail.transport.',
    );
    await admin.page.goto(`${ferry.url}/?lang=en`);
    await admin.page.locator('aside.site-notice a', { hasText: 'Open the inbox' }).click();
    await admin.page.locator('h1', { hasText: 'Built-in inbox' }).waitFor();
    assert.match(admin.page.url(), /\?s=mail-sink$/);
    await admin.page.setViewportSize({ width: 390, height: 844 });
    await admin.page.goto(`${ferry.url}/`);
    await shot(admin.page, 'mail-inbox-notice-phone');
    const box = await admin.page.locator('aside.site-notice').boundingBox();
    assert.ok(box && box.height < 120, `the notice stays small on a phone (${box?.height} px)`);

    for (const s of ['', '?s=transfers', '?s=guests', '?s=profile']) {
      await user.page.goto(`${ferry.url}/${s}`);
      await user.page.locator('main').waitFor();
      assert.is(await user.page.locator('aside.site-notice').count(), 0, `no notice for a user on "${s}"`);
      assert.not.match(await user.page.content(), 'built-in inbox');
    }
  } finally {
    await admin.close();
    await user.close();
    await ferry.stop();
  }
});

let smtp: ScriptedSmtp;
const refuse = (to: string) =>
  to === 'busy@example.org'
    ? { code: 450, text: '4.2.1 <busy@example.org>: Mailbox busy, try <b>later</b>' }
    : to === 'gone@example.org'
      ? { code: 550, text: '5.1.1 <gone@example.org>: User unknown' }
      : null;

test('an upload says the mail is queued, not sent; the transfer page shows deferred and bounced recipients with the server’s answer, and "Send again" delivers', async () => {
  smtp = await startScriptedSmtp(refuse);
  const ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'], mail: { transport: smtp.url } });
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    const file = makeFile(dir, 'minutes.txt', 20_000);
    const { page } = b;
    await page.goto(`${ferry.url}/`);
    await page.locator('#upload-title').waitFor();
    assert.is(await page.locator('aside.site-notice').count(), 0, 'mail is delivered: no notice');
    await page.setInputFiles('#pick-files', [file.path]);
    await page.fill('#upload-recipients', 'ok@example.org, busy@example.org, gone@example.org');
    await page.keyboard.press('Enter');
    await page.fill('#upload-subject', 'Minutes');
    await page.click('button.primary');
    await page.locator('#summary-title').waitFor({ timeout: 60_000 });

    // Never "sent" before the queue has sent it.
    assert.is(await page.locator('#summary-title').innerText(), 'Your files are uploaded');
    assert.is(
      await page.locator('.summary .mail-status').innerText(),
      'The e-mail to the recipients is queued; each address below says when it has been sent.',
    );
    assert.not.match(await page.locator('.summary').innerText(), 'have been sent');
    const row = (who: string) => page.locator('.links li', { hasText: who });
    // Then each address says what became of its mail, without a reload.
    await row('ok@example.org').locator('.delivery-sent').waitFor({ timeout: 20_000 });
    await row('busy@example.org').locator('.delivery-deferred').waitFor({ timeout: 20_000 });
    await row('gone@example.org').locator('.delivery-bounced').waitFor({ timeout: 20_000 });
    assert.match(
      await row('ok@example.org').locator('.delivery').innerText(),
      /^Mail sent \d{1,2} [A-Z][a-z]{2} \d{4}/,
    );
    assert.is(
      await page.locator('.summary .mail-status').innerText(),
      'The e-mail to the recipients is queued; each address below says when it has been sent.',
      'not every recipient has it',
    );
    await shot(page, 'mail-upload-summary-states');

    // My transfers: the row says two recipients are not reached; the details say why, escaped.
    await page.goto(`${ferry.url}/?s=transfers`);
    const tr = page.locator('table.transfers tbody tr', { hasText: 'Minutes' }).first();
    await tr.locator('.delivery-bounced', { hasText: '2 recipients not reached yet' }).waitFor();
    await tr.locator('button', { hasText: 'Details' }).click();
    const details = page.locator('.details');
    const rec = (who: string) => details.locator('.recipient-list li', { hasText: who });
    await rec('busy@example.org').locator('.delivery-deferred').waitFor();
    assert.is(
      await rec('busy@example.org').locator('.delivery-deferred').innerText(),
      'Mail deferred, will be retried\nServer answer: 450 4.2.1 <busy@example.org>: Mailbox busy, try <b>later</b>',
    );
    assert.is(await rec('busy@example.org').locator('.delivery b').count(), 0, 'the answer is text, not markup');
    assert.is(
      await rec('gone@example.org').locator('.delivery-bounced').innerText(),
      'Mail not delivered\nServer answer: 550 5.1.1 <gone@example.org>: User unknown',
    );
    assert.is(
      await rec('gone@example.org').locator('span.error').count(),
      0,
      'the bounce is said once, as the delivery state',
    );
    assert.match(await rec('ok@example.org').locator('.delivery').innerText(), /^Mail sent /);
    assert.is(await rec('ok@example.org').locator('button', { hasText: 'Send again' }).count(), 0);
    assert.is(await rec('ok@example.org').locator('button', { hasText: 'Remind' }).count(), 1);
    assert.is(
      await rec('busy@example.org').locator('button', { hasText: 'Send again' }).getAttribute('aria-label'),
      'Send again to busy@example.org',
    );
    await shot(page, 'mail-transfer-undelivered');
    for (const size of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(size);
      await page.waitForTimeout(150);
      const serious = (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.equal(serious, [], `axe at ${size.width} px`);
    }
    await shot(page, 'mail-transfer-undelivered-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    // The mail server takes mail again: "Send again" queues the very mail, which then goes out.
    smtp.answer = () => null;
    const before = smtp.received.length;
    for (const who of ['busy@example.org', 'gone@example.org']) {
      await rec(who).locator('button', { hasText: 'Send again' }).click();
      await rec(who).locator('.ok', { hasText: 'Queued again.' }).waitFor();
      await rec(who).locator('.delivery-sent').waitFor({ timeout: 20_000 });
    }
    assert.is(await details.locator('button', { hasText: 'Send again' }).count(), 0);
    await shot(page, 'mail-transfer-sent-again');
    const got = smtp.received
      .slice(before)
      .map((m) => `${addressOf(m.to)}: ${m.subject}`)
      .sort();
    assert.equal(got, [
      'busy@example.org: alice@example.org sent you files: Minutes',
      'gone@example.org: alice@example.org sent you files: Minutes',
    ]);
    await page.reload();
    await page.locator('table.transfers tbody tr', { hasText: 'Minutes' }).first().waitFor();
    assert.is(
      await page
        .locator('table.transfers tbody tr', { hasText: 'Minutes' })
        .first()
        .locator('.delivery-bounced')
        .count(),
      0,
    );
    assert.equal(
      b.errors.filter((e) => !/status of 4\d\d/.test(e)),
      [],
    );
  } finally {
    await b.close();
    await ferry.stop();
    await smtp.close();
  }
});

test.run();
