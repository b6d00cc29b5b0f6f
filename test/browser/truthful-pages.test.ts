import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { axe, sendViaRest } from './fixtures';
import {
  openBrowser,
  startFerry,
  shot,
  makeFile,
  rest,
  HEADER_SP_CONFIG,
  asUserHeaders,
  BrowserSession,
  fillUploadForm,
} from './harness';

// The pages tell the truth (the web application's fourth pass): a download limit the form cannot hold is
// refused in words before anything is sent; "downloaded" means bytes went out, not that the page was opened; a
// spent limit shows on an open page and a refused download is never saved; mail kept in the built-in inbox is
// not called sent; a link-only transfer offers no reminders; one error page design; plural forms; and the
// smaller things a new user tripped on.

let ferry: BinaryServer;
let dir: string;
let alice: BrowserSession;
test.before(async () => {
  dir = tempDir('ferry-browser-truthful-');
  // No mail settings: the defaults keep mail in the built-in inbox.
  ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'] });
  alice = await openBrowser({ headers: asUserHeaders('alice') });
});
test.after(async () => {
  await alice?.close();
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function uploadForm(page: Page, file: string, subject: string) {
  return fillUploadForm(page, ferry.url, [file], 'rita@example.org', subject);
}

async function noSeriousAxe(page: Page, where: string) {
  const serious = (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious, [], `axe on ${where}`);
}

async function transferNamed(subject: string, user = 'alice') {
  const list = (await rest(ferry.url, 'GET', '/transfer', user)).json as any[];
  return list.find((x) => x.subject === subject);
}

test('1. a download limit the field cannot hold is refused in words that give the range, and nothing is sent', async () => {
  const file = makeFile(dir, 'limit-check.bin', 2000);
  const { page } = alice;
  await uploadForm(page, file.path, 'Bad limits');
  let posted = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/transfer')) posted++;
  });
  for (const typed of ['-1', '0', '1.5', 'abc', '1000001']) {
    await page.fill('#upload-download-limit', typed);
    await page.click('button.primary');
    const said = await page.locator('.upload-form p.error[role=alert]').innerText();
    assert.is(
      said,
      `Download limit: "${typed}" is not a whole number from 1 to 1,000,000. Leave the field empty for no limit.`,
      typed,
    );
    assert.is(await page.getAttribute('#upload-download-limit', 'aria-invalid'), 'true');
  }
  assert.is(posted, 0, 'no transfer was created');
  assert.match(await page.locator('#upload-download-limit-hint').innerText(), 'A whole number from 1 to 1,000,000.');
  await shot(page, 'truthful-download-limit-refused');
  // A right one goes through as typed.
  await page.fill('#upload-download-limit', ' 3 ');
  await page.click('button.primary');
  await page.locator('#summary-title').waitFor({ timeout: 60_000 });
  assert.is((await transferNamed('Bad limits')).download_limit, 3);
});

test('11. a wrong recipient entry is quoted as typed, not its first word', async () => {
  const { page } = alice;
  await page.goto(`${ferry.url}/`);
  await page.locator('#upload-title').waitFor();
  await page.fill('#upload-recipients', 'not an address');
  await page.keyboard.press('Enter');
  assert.is(await page.locator('.recipients p.error').innerText(), '"not an address" is not a valid e-mail address.');
  // Addresses separated by spaces are still taken one by one.
  await page.fill('#upload-recipients', 'a@example.org b@example.org');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('.recipients ul.chips li span').allInnerTexts(), ['a@example.org', 'b@example.org']);
});

test('2. a recipient who only opened the page has "opened", not "downloaded", in my transfers and the admin list', async () => {
  const t = await sendViaRest(ferry.url, 'alice', 'Opened only', { 'a.txt': 'alpha', 'b.txt': 'beta' }, [
    'rita@example.org',
    'sam@example.org',
  ]);
  const [rita, sam] = t.recipients;
  const visitor = await openBrowser();
  try {
    await visitor.page.goto(`${ferry.url}/?s=download&token=${rita.token}`);
    await visitor.page.goto(`${ferry.url}/?s=download&token=${sam.token}`);
  } finally {
    await visitor.close();
  }
  // Sam downloads one file whole; Rita only looked.
  const got = await fetch(`${ferry.url}/download?token=${sam.token}&files_ids=${t.files[0].id}`);
  assert.is(await got.text(), 'alpha');
  const { page } = alice;
  const row = async (path: string) => {
    await page.goto(`${ferry.url}/${path}`);
    return page.locator('table.transfers tbody tr', { hasText: 'Opened only' }).first();
  };
  for (let i = 0; i < 50; i++) {
    const r = await row('?s=transfers');
    if ((await r.locator('.downloaded-by').innerText()) === 'downloaded by 1 of 2') break;
    await page.waitForTimeout(100); // the download's end is counted once its last byte has gone out
  }
  const mine = await row('?s=transfers');
  assert.is(await mine.locator('.downloaded-by').innerText(), 'downloaded by 1 of 2');
  assert.is(await mine.locator('.opened-only').innerText(), 'opened, not downloaded: 1');
  await mine.locator('button', { hasText: 'Details' }).click();
  const ritaLine = page.locator('.details .recipient-list li', { hasText: 'rita@example.org' });
  assert.match(await ritaLine.locator('.activity').innerText(), /^opened the page .*; nothing downloaded yet$/);
  const samLine = page.locator('.details .recipient-list li', { hasText: 'sam@example.org' });
  assert.match(await samLine.locator('.activity').innerText(), /^downloaded · last activity /);
  await shot(page, 'truthful-opened-not-downloaded');
  const root = await openBrowser({ headers: asUserHeaders('root') });
  try {
    await root.page.goto(`${ferry.url}/?s=admin`);
    await root.page.locator('nav.tabs button', { hasText: 'All transfers' }).click();
    const adminRow = root.page.locator('table.transfers tbody tr', { hasText: 'Opened only' }).first();
    assert.is(await adminRow.locator('.downloaded-by').innerText(), 'downloaded by 1 of 2');
    assert.is(await adminRow.locator('.opened-only').innerText(), 'opened, not downloaded: 1');
  } finally {
    await root.close();
  }
});

test('3. a spent download limit shows on the open page, and a refused download is never saved', async () => {
  const t = await sendViaRest(ferry.url, 'alice', 'Once', { 'once.txt': 'only once' }, ['rita@example.org']);
  assert.is((await rest(ferry.url, 'PUT', `/transfer/${t.id}`, 'alice', { download_limit: 1 })).status, 200);
  const b = await openBrowser();
  try {
    const { page } = b;
    await page.goto(`${ferry.url}/?s=download&token=${t.recipients[0].token}`);
    const saved: string[] = [];
    page.on('download', (d) => saved.push(d.suggestedFilename()));
    const row = page.locator('tr[data-file-id]', { hasText: 'once.txt' });
    const first = page.waitForEvent('download');
    await row.locator('a[download]').click();
    const d = await first;
    assert.is(fs.readFileSync((await d.path())!, 'utf8'), 'only once');
    // The page learns that the file is spent without a reload.
    await row.locator('.spent', { hasText: 'No downloads left' }).waitFor({ timeout: 15_000 });
    assert.is(await row.locator('a[download]').count(), 0);
    assert.ok(await row.locator('input[type=checkbox]').isDisabled());
    // "Download all" is refused in words, and no download.json appears.
    await page.locator('a.button.primary[download]').click();
    await page.locator('.download-status', { hasText: 'No downloads left through this link' }).waitFor();
    await page.waitForTimeout(1000);
    assert.equal(saved, ['once.txt']);
    await shot(page, 'truthful-limit-spent-on-open-page');
  } finally {
    await b.close();
  }
});

const KEPT_REMINDER = 'Reminder kept in the built-in inbox; not delivered (no mail server is configured).';

test('4. an invitation or a reminder kept in the built-in inbox is never called sent', async () => {
  const { page } = alice;
  await page.goto(`${ferry.url}/?s=guests`);
  await page.fill('#guest-email', 'gail@example.org');
  await page.click('form.invite button.primary');
  assert.is(
    await page.locator('form.invite p.ok[role=status]').innerText(),
    'The invitation for gail@example.org was kept in the built-in inbox; not delivered (no mail server is configured). Give them the link below.',
  );
  assert.not.match(await page.locator('main').innerText(), /invitation was sent|Invitations sent/);
  const guestRow = page.locator('table.guests tbody tr', { hasText: 'gail@example.org' });
  await guestRow.locator('button', { hasText: 'Remind' }).click();
  assert.is(await guestRow.locator('.action .ok').innerText(), KEPT_REMINDER);
  await shot(page, 'truthful-invitation-kept');
  await sendViaRest(ferry.url, 'alice', 'Kept reminder', { 'k.txt': 'k' }, ['kim@example.org']);
  await page.goto(`${ferry.url}/?s=transfers`);
  await page
    .locator('table.transfers tbody tr', { hasText: 'Kept reminder' })
    .locator('button', { hasText: 'Details' })
    .click();
  await page.locator('.details .actions button', { hasText: 'Remind all' }).click();
  assert.is(await page.locator('.details .actions .action .ok').first().innerText(), KEPT_REMINDER);
  assert.not.match(await page.locator('.details').innerText(), /Reminder sent/);
});

test('5. a link-only transfer offers neither reminders nor "Add a recipient", and the API refuses both', async () => {
  const t = await sendViaRest(ferry.url, 'alice', 'Link only', { 'l.txt': 'l' }, [], ['get_a_link']);
  const { page } = alice;
  await page.goto(`${ferry.url}/?s=transfers`);
  await page
    .locator('table.transfers tbody tr', { hasText: 'Link only' })
    .locator('button', { hasText: 'Details' })
    .click();
  await page.locator('.details .recipient-list').waitFor();
  const details = page.locator('.details');
  assert.is(await details.locator('button', { hasText: /Remind/ }).count(), 0);
  assert.is(await details.locator('form.add-recipient').count(), 0);
  assert.ok(await details.locator('button', { hasText: 'Close transfer' }).count(), 'the other actions stay');
  const remind = await rest(ferry.url, 'PUT', `/transfer/${t.id}`, 'alice', { remind: true });
  assert.equal([remind.status, remind.json.message], [409, 'transfer_link_only']);
  const one = await rest(ferry.url, 'PUT', `/recipient/${t.recipients[0].id}`, 'alice', { remind: true });
  assert.equal([one.status, one.json.message], [409, 'transfer_link_only']);
  const add = await rest(ferry.url, 'POST', `/transfer/${t.id}/recipient`, 'alice', { recipient: 'x@example.org' });
  assert.equal([add.status, add.json.message], [409, 'transfer_link_only']);
  const log = (await rest(ferry.url, 'GET', `/transfer/${t.id}/auditlog`, 'alice')).json as any[];
  assert.not.ok(
    log.some((e) => e.event === 'transfer_reminded'),
    'no reminder recorded',
  );
});

/** What every error page has: a short heading, the reason in words, a reference, no stray buttons. */
async function assertErrorPage(page: Page, heading: string, reason: string | RegExp) {
  const card = page.locator('main .error-page');
  assert.is(await card.locator('h1').innerText(), heading);
  assert.match(await card.locator('.error-reason').innerText(), reason);
  assert.match(await card.locator('.error-reference').innerText(), /^Reference of this error: \S+$/);
  assert.is(await page.locator('button:visible', { hasText: 'Change' }).count(), 0, 'no stray Change button');
}

test('8. one error page design: spent link (with subject and sender), bad invitation, bad token, unknown path; JSON for API clients', async () => {
  const t = await sendViaRest(ferry.url, 'alice', 'Spent link', { 's.txt': 'spent' }, ['rita@example.org']);
  assert.is((await rest(ferry.url, 'PUT', `/transfer/${t.id}`, 'alice', { download_limit: 1 })).status, 200);
  assert.is(await (await fetch(`${ferry.url}/download?token=${t.recipients[0].token}`)).text(), 'spent');
  const b = await openBrowser();
  try {
    const { page } = b;
    let status = 0;
    for (let i = 0; i < 50 && status !== 410; i++) {
      status = (await page.goto(`${ferry.url}/?s=download&token=${t.recipients[0].token}`))?.status() ?? 0;
      if (status !== 410) await page.waitForTimeout(100);
    }
    assert.is(status, 410);
    await assertErrorPage(page, 'This link no longer works', /^This link has no downloads left/);
    const facts = await page.locator('.error-page dl.facts').innerText();
    assert.match(facts, 'Spent link');
    assert.match(facts, 'alice@example.org');
    await shot(page, 'truthful-error-spent-link');
    await noSeriousAxe(page, 'the error page');

    assert.is((await page.goto(`${ferry.url}/?s=upload&vid=${'ab'.repeat(16)}`))?.status(), 401);
    await assertErrorPage(page, 'Access refused', /^This invitation link is not valid/);
    await shot(page, 'truthful-error-bad-invitation');

    assert.is((await page.goto(`${ferry.url}/?s=download&token=${'cd'.repeat(16)}`))?.status(), 404);
    await assertErrorPage(page, 'Not found', 'This transfer does not exist.');

    assert.is((await page.goto(`${ferry.url}/no/such/page`))?.status(), 404);
    await assertErrorPage(page, 'Not found', /^There is no page at this address/);
    await shot(page, 'truthful-error-unknown-path');
    assert.is(await page.locator('main .error-page a[href="/"]').count(), 1, 'a way on');
  } finally {
    await b.close();
  }
  // API clients keep the spec's JSON, whatever they accept.
  for (const accept of ['application/json', '*/*']) {
    const r = await fetch(`${ferry.url}/no/such/page`, { headers: { Accept: accept } });
    assert.is(r.status, 404);
    assert.match(r.headers.get('content-type') ?? '', 'application/json');
    const body = await r.json();
    assert.is(body.message, 'rest_endpoint_not_found');
    assert.type(body.uid, 'string');
  }
});

test('9. counts take the language\'s plural form: "1 time", "2 razy", "1 message", "5 dni"', async () => {
  const t = await sendViaRest(ferry.url, 'alice', 'Counted', { 'c.txt': 'c' }, ['rita@example.org']);
  const limit = async (n: number) =>
    assert.is((await rest(ferry.url, 'PUT', `/transfer/${t.id}`, 'alice', { download_limit: n })).status, 200);
  const b = await openBrowser();
  const root = await openBrowser({ headers: asUserHeaders('root') });
  try {
    const { page } = b;
    const limitText = async (lang: string) => {
      await page.goto(`${ferry.url}/?s=download&token=${t.recipients[0].token}&lang=${lang}`);
      return page.locator('dl.facts dd').last().innerText();
    };
    await limit(1);
    assert.is(await limitText('en'), 'Each file may be downloaded 1 time through this link.');
    assert.is(await limitText('pl'), 'Każdy plik można pobrać przez ten link 1 raz.');
    await limit(2);
    assert.is(await limitText('en'), 'Each file may be downloaded 2 times through this link.');
    assert.is(await limitText('pl'), 'Każdy plik można pobrać przez ten link 2 razy.');
    assert.is(await limitText('es'), 'Cada archivo puede descargarse 2 veces por este enlace.');
    // The built-in inbox counts its messages (one so far in this test's own folder is not guaranteed: read it).
    await root.page.goto(`${ferry.url}/?s=mail-sink`);
    const count = await root.page.locator('main p', { hasText: 'stored in' }).innerText();
    const n = Number(/^(\d+) /.exec(count)?.[1]);
    assert.ok(n >= 1, count);
    assert.match(count, n === 1 ? /^1 message stored in / : new RegExp(`^${n} messages stored in `));
    // The upload page's expiry hint in Polish and Czech counts days in their forms.
    await alice.page.goto(`${ferry.url}/?lang=pl`);
    assert.match(await alice.page.locator('#upload-expires-hint').innerText(), /\(najwyżej 20 dni od dziś\)/);
  } finally {
    await alice.page.goto(`${ferry.url}/?lang=en`);
    await b.close();
    await root.close();
  }
});

test("10. times in the reader's zone, named: the inbox, a mail's headers (translated), the expiry; the inbox's cells keep dates and addresses whole", async () => {
  const t = await sendViaRest(ferry.url, 'alice', 'Zoned', { 'z.txt': 'z' }, [
    'a-rather-long-recipient-address@example.org',
  ]);
  const root = await openBrowser({ headers: asUserHeaders('root'), timezoneId: 'Pacific/Auckland' });
  try {
    const { page } = root;
    await page.goto(`${ferry.url}/?s=mail-sink`);
    const row = page.locator('table.mail-list tbody tr', { hasText: 'a-rather-long-recipient-address@example.org' });
    const when = await row.locator('td.when').innerText();
    // Auckland is 12 or 13 hours ahead of UTC: the zone is named, and it is the reader's, not UTC.
    assert.match(when, /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} GMT\+1[23]$/);
    const lines = (el: string) =>
      row.locator(el).evaluate((e) => {
        const r = document.createRange();
        r.selectNodeContents(e);
        return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
      });
    assert.is(await lines('td.when'), 1, 'the date on one line');
    assert.is(await lines('td.addr:nth-child(3) .addr-one'), 1, 'the address whole on one line');
    await shot(page, 'truthful-inbox-times');
    // One message in Spanish: its header labels are Spanish, its date in the reader's zone.
    await row.locator('a').click();
    await page.locator('dl.mail-headers').waitFor();
    await page.goto(`${page.url()}&lang=es`);
    const labels = await page.locator('dl.mail-headers dt').allInnerTexts();
    assert.ok(labels.includes('Fecha') && labels.includes('De') && labels.includes('Para'), labels.join(','));
    assert.not.ok(
      labels.some((l) => /^(date|from|to|subject)$/i.test(l)),
      labels.join(','),
    );
    assert.match(await page.locator('dl.mail-headers dd').first().innerText(), /GMT\+1[23]$/);
    await page.goto(`${ferry.url}/?s=mail-sink&lang=en`);
  } finally {
    await root.close();
  }
  const reader = await openBrowser({ timezoneId: 'Pacific/Auckland' });
  try {
    await reader.page.goto(`${ferry.url}/?s=download&token=${t.recipients[0].token}`);
    const expires = await reader.page.locator('dl.facts time').innerText();
    const expected = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
      timeZone: 'Pacific/Auckland',
    }).format(t.expires.raw * 1000);
    assert.is(expires, expected);
  } finally {
    await reader.close();
  }
});

test("6. an admin settings page: what PUT /config can change, checked in words; the config file's values read-only", async () => {
  const root = await openBrowser({ headers: asUserHeaders('root') });
  const config = async () => (await rest(ferry.url, 'GET', '/config', 'root')).json;
  try {
    const { page } = root;
    await page.goto(`${ferry.url}/?s=admin`);
    await page.locator('nav.tabs button', { hasText: 'Settings' }).click();
    const reminders = page.locator('#setting-transfer_automatic_reminder');
    await reminders.waitFor();
    assert.is(await reminders.inputValue(), '');
    assert.is(await page.locator('#setting-max_transfer_days_valid').inputValue(), '20');
    // Wrong values are refused in words, before anything is sent.
    await reminders.fill('3, 0');
    await page.fill('#setting-max_transfer_days_valid', 'abc');
    await page.click('form.admin-settings button.primary');
    assert.is(
      await page.locator('#setting-transfer_automatic_reminder-error').innerText(),
      'Automatic reminders to recipients (days before expiry): "3, 0" is not a list of days, each a whole number from 1 to 365.',
    );
    assert.is(
      await page.locator('#setting-max_transfer_days_valid-error').innerText(),
      'Most days a transfer may last: "abc" is not a whole number from 1 to 36,500.',
    );
    assert.is(
      await page.locator('form.admin-settings p.error[role=alert]').innerText(),
      'Nothing was saved: correct the settings marked above.',
    );
    assert.equal((await config()).transfer_automatic_reminder, []);
    // A default longer than the most allowed: the server's cross-check, named in words.
    await reminders.fill('3, 1');
    await page.fill('#setting-max_transfer_days_valid', '5');
    await page.click('form.admin-settings button.primary');
    const refused = page.locator('form.admin-settings p.error[role=alert]', { hasText: 'Not saved' });
    assert.match(await refused.innerText(), /^Not saved: the server refused Days a transfer lasts by default/);
    await page.fill('#setting-max_transfer_days_valid', '30');
    await page.fill('#setting-max_transfer_size', '2 GB');
    await page.click('form.admin-settings button.primary');
    await page.locator('form.admin-settings p.ok', { hasText: 'Saved.' }).waitFor();
    const after = await config();
    assert.equal(after.transfer_automatic_reminder, [3, 1]);
    assert.is(after.max_transfer_days_valid, 30);
    assert.is(after.max_transfer_size, 2_000_000_000);
    // "Saved." shows first; the hint follows once the page has read the settings again.
    await page
      .locator('#setting-max_transfer_days_valid-hint', { hasText: 'Changed here; the config file has 20.' })
      .waitFor({ timeout: 10_000 });
    // What only the config file sets, read-only.
    const fileOnly = page.locator('section.file-only');
    assert.match(await fileOnly.innerText(), /upload_chunk_size/);
    assert.is(await fileOnly.locator('input').count(), 0);
    await shot(page, 'truthful-admin-settings');
    await noSeriousAxe(page, 'the settings page');
    // Back as it was, for the other tests.
    assert.is(
      (
        await rest(ferry.url, 'PUT', '/config', 'root', {
          transfer_automatic_reminder: [],
          max_transfer_days_valid: 20,
          max_transfer_size: after.config_file.max_transfer_size,
        })
      ).status,
      200,
    );
  } finally {
    await root.close();
  }
});

test('7. the public address field is empty until set; the disk\'s fill sits under "Free on the disk"; the admin\'s placeholder address shows in Users', async () => {
  const local = await startFerry({});
  const b = await openBrowser();
  try {
    const password = /created the first account: user "admin", password (\S+) /.exec(local.output())?.[1];
    assert.ok(password, local.output());
    const { page } = b;
    await page.goto(`${local.url}/login`);
    await page.fill('#login-user', 'admin');
    await page.fill('#login-password', password!);
    await page.click('form.login-form button[type=submit]');
    await page.locator('#upload-title').waitFor();
    await page.goto(`${local.url}/?s=admin`);
    const field = page.locator('#public-address-url');
    await field.waitFor();
    assert.is(await field.inputValue(), '', 'nothing set here: the field is empty, as its hint says');
    assert.is(await page.locator('.public-address-in-use').innerText(), `In use now: ${local.url}`);
    const meter = page.locator('dl.storage meter');
    await meter.waitFor();
    assert.is(await page.locator('dl.storage dd.storage-free meter').count(), 1, 'the disk bar is in its own row');
    assert.is(await page.locator('dl.storage dd.host-quota meter').count(), 0);
    await shot(page, 'truthful-admin-overview');
    await page.locator('nav.tabs button', { hasText: 'Users' }).click();
    const row = page.locator('tr[data-user="admin"]');
    await row.waitFor();
    assert.is(await row.locator('input').first().inputValue(), 'admin@localhost.localdomain');
    assert.match(await row.locator('.placeholder-email').innerText(), /is a placeholder, nobody's mailbox/);
  } finally {
    await b.close();
    await local.stop();
  }
});

test('15. on a phone the encryption choices are never split: "Generate a password" stays on one line', async () => {
  const { page } = alice;
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    for (const lang of ['en', 'es', 'pl', 'de']) {
      await page.goto(`${ferry.url}/?lang=${lang}`);
      await page.locator('#upload-title').waitFor();
      await page.check('#upload-encrypt');
      const labels = page.locator('.encrypt-modes label');
      assert.is(await labels.count(), 2);
      for (let i = 0; i < 2; i++) {
        // The lines the label's words sit on (its text, not the radio button beside it).
        const lines = await labels.nth(i).evaluate((l) => {
          const tops = new Set<number>();
          for (const n of l.childNodes) {
            if (n.nodeType !== Node.TEXT_NODE || !n.textContent?.trim()) continue;
            const r = document.createRange();
            r.selectNodeContents(n);
            for (const x of r.getClientRects()) if (x.width > 0) tops.add(Math.round(x.top));
          }
          return tops.size;
        });
        assert.is(lines, 1, `${lang}: "${await labels.nth(i).innerText()}" on one line`);
      }
      if (lang === 'en') await shot(page, 'truthful-encrypt-choices-phone');
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${ferry.url}/?lang=en`);
  }
});

test.run();
