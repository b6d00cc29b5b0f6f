import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { axe, savedSha256, sendViaRest } from './fixtures';
import {
  openBrowser,
  startFerry,
  shot,
  makeFile,
  rest,
  HEADER_SP_CONFIG,
  asUserHeaders,
  watchProgress,
  fillUploadForm,
} from './harness';

// What a new user meets on a fresh server, said as it is: mail that only reached the built-in inbox is not
// called sent; an encrypted file is never offered as if it were the file; a withdrawn link says so; a closed
// transfer offers no links.

let ferry: BinaryServer;
let dir: string;
test.before(async () => {
  dir = tempDir('ferry-browser-honest-');
  // No mail settings at all: the defaults keep mail in the built-in inbox.
  ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'], encryption_password_hash_iterations: 10000 });
});
test.after(async () => {
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const PASSWORD = 'Design-Review-2026!';

async function noSeriousAxe(page: Page, where: string) {
  const serious = (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious, [], `axe on ${where}`);
}

async function upload(page: Page, files: string[], to: string, subject: string, encrypt = false) {
  await fillUploadForm(page, ferry.url, files, to, subject);
  if (encrypt) {
    await page.check('#upload-encrypt');
    await page.fill('input.encrypt-password', PASSWORD);
  }
  await page.click('button.primary');
  await watchProgress(page, 120_000);
}

const KEPT = 'Kept in the built-in inbox; not delivered (no mail server is configured)';

test('mail kept in the built-in inbox is never called sent: a user (not an admin) reads so on the done page and in the details', async () => {
  const file = makeFile(dir, 'plan.pdf', 40_000);
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    const { page } = b;
    await upload(page, [file.path], 'zoe@example.com', 'Plan');
    const row = page.locator('.links li', { hasText: 'zoe@example.com' });
    await row.locator('.delivery-kept').waitFor({ timeout: 20_000 });
    assert.is(await row.locator('.delivery').innerText(), KEPT);
    assert.match(
      await page.locator('.summary .mail-status').innerText(),
      /^The e-mail was kept in the built-in inbox; not delivered \(no mail server is configured\)/,
    );
    assert.not.match(await page.locator('.summary').innerText(), /has been sent|Mail sent/);
    await shot(page, 'honest-mail-kept-summary');
    await page.goto(`${ferry.url}/?s=transfers`);
    await page
      .locator('table.transfers tbody tr', { hasText: 'Plan' })
      .locator('button', { hasText: 'Details' })
      .click();
    const rec = page.locator('.details .recipient-list li', { hasText: 'zoe@example.com' });
    await rec.locator('.delivery-kept').waitFor();
    assert.is(await rec.locator('.delivery').innerText(), KEPT);
    await page.goto(`${ferry.url}/?s=transfers&lang=fr`);
    await page.locator('table.transfers tbody tr', { hasText: 'Plan' }).locator('button').first().click();
    assert.match(
      await page
        .locator('.details .recipient-list li', { hasText: 'zoe@example.com' })
        .locator('.delivery')
        .innerText(),
      'Conservé dans la boîte de réception intégrée',
    );
  } finally {
    await b.close();
  }
});

test('an encrypted transfer: no link saves encrypted bytes under the real name; the page says it is encrypted, unlocks, saves all; the sender is reminded to pass the password on', async () => {
  const files = [makeFile(dir, 'design-3MB.bin', 3_000_000), makeFile(dir, 'notes.txt', 1234)];
  const sender = await openBrowser({ headers: asUserHeaders('alice') });
  let token = '';
  try {
    await upload(
      sender.page,
      files.map((f) => f.path),
      'rita@example.org',
      'Encrypted design',
      true,
    );
    assert.match(
      await sender.page.locator('.summary .password-reminder').innerText(),
      'Give the recipients the password separately',
    );
    token = /token=([\w-]+)/.exec(
      (await sender.page.locator('.links a.download-link').first().getAttribute('href')) ?? '',
    )![1];
  } finally {
    await sender.close();
  }
  const b = await openBrowser();
  try {
    const { page } = b;
    await page.addInitScript(() => {
      (window as any).showDirectoryPicker = async () => navigator.storage.getDirectory();
      (window as any).showSaveFilePicker = async (o: { suggestedName: string }) =>
        (await navigator.storage.getDirectory()).getFileHandle(o.suggestedName, { create: true });
    });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 1280 ? 900 : 844 });
      await page.goto(`${ferry.url}/?s=download&token=${token}`);
      await page.locator('form.e2ee-unlock').waitFor({ state: 'visible' });
      // Nothing on the page downloads a file's stored bytes.
      assert.equal(await page.locator('a[href*="/download?"]').count(), 0, 'no plain download link');
      for (const f of ['design-3MB.bin', 'notes.txt']) {
        const row = page.locator(`tr.e2ee-file[data-save-name="${f}"]`);
        assert.is(
          await row.locator('.e2ee-file-status').innerText(),
          'Encrypted: enter the password above to save it.',
        );
        // The name has room: not squeezed into a narrow column.
        const w = await row
          .locator('td')
          .first()
          .evaluate((td) => td.getBoundingClientRect().width);
        assert.ok(w > width * 0.4, `the name's column is ${w}px wide at ${width}px`);
      }
      const text = await page.locator('section.download').innerText();
      assert.not.match(text, /ciphertext|chunk/i);
      await shot(page, `honest-encrypted-download-${width}`);
      await noSeriousAxe(page, `encrypted download page at ${width}px`);
    }
    await page.fill('#e2ee-password', PASSWORD);
    await page.click('form.e2ee-unlock button[type=submit]');
    await page.locator('.e2ee-status', { hasText: 'Password correct' }).waitFor({ timeout: 30_000 });
    // Each file saved on its own first (a save dialog, here answered with a file of the page's private file
    // system), then "Decrypt and save all": it saves every file again and says so when done.
    for (const f of files) {
      const name = f.path.split('/').pop()!;
      const row = page.locator(`tr.e2ee-file[data-save-name="${name}"]`);
      await row.locator('button.e2ee-save').click();
      await row.locator('.e2ee-file-status', { hasText: 'Saved.' }).waitFor({ timeout: 60_000 });
    }
    await page.evaluate(async () => {
      for (const n of ['design-3MB.bin', 'notes.txt']) await (await navigator.storage.getDirectory()).removeEntry(n);
    });
    await page.click('button.e2ee-save-all');
    await page.locator('.e2ee-status', { hasText: 'Saved: all 2 files are decrypted.' }).waitFor({ timeout: 60_000 });
    for (const f of files) {
      const name = f.path.split('/').pop()!;
      await page.waitForFunction(
        (n) => document.querySelector(`tr.e2ee-file[data-save-name="${n}"]`)?.getAttribute('data-saved') === 'true',
        name,
        { timeout: 60_000 },
      );
      assert.is(await savedSha256(b, name), f.sha256, name);
    }
    assert.equal(b.errors, []);
  } finally {
    await b.close();
  }
});

test('a guest can finish: the inviter is a ready recipient, the days left agree with the form, and the owner sees that a guest sent it', async () => {
  const g = await rest(ferry.url, 'POST', '/guest', 'alice', {
    recipient: 'gus@example.org',
    from: 'alice@example.org',
    subject: 'Scans, please',
  });
  assert.is(g.status, 201, JSON.stringify(g.json));
  const file = makeFile(dir, 'scan-1.pdf', 30_000);
  const b = await openBrowser();
  try {
    const { page } = b;
    await page.goto(g.json.upload_url);
    await page.locator('.invitation').waitFor();
    assert.equal(await page.locator('.chips li > span').allInnerTexts(), ['alice@example.org']);
    assert.is(
      await page.locator('.files-go-to').innerText(),
      'Your files go to alice@example.org, who invited you, and to anyone else you add below.',
    );
    const valid = (await page.locator('.valid-until').innerText()).replace(/\u00a0/g, ' ');
    assert.match(valid, /\(20 days left\)/);
    assert.match(await page.locator('#upload-expires-hint').innerText(), 'at most 20 days');
    await shot(page, 'honest-guest-page');
    await page.setInputFiles('#pick-files', [file.path]);
    await page.click('button.primary');
    await watchProgress(page, 60_000);
  } finally {
    await b.close();
  }
  const owner = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    await owner.page.goto(`${ferry.url}/?s=transfers`);
    const row = owner.page.locator('table.transfers tbody tr', { hasText: 'scan-1.pdf' });
    assert.is(await row.locator('.sent-by-guest').innerText(), 'Sent by your guest gus@example.org');
  } finally {
    await owner.close();
  }
});

test('a withdrawn recipient reads that the sender withdrew the link; a closed transfer shows no download links and no expiry', async () => {
  const t = await sendViaRest(ferry.url, 'alice', 'Withdrawn', { 'a.txt': 'aaa' }, [
    'keep@example.org',
    'gone@example.org',
  ]);
  const gone = t.recipients.find((r: any) => r.email === 'gone@example.org');
  assert.is((await rest(ferry.url, 'DELETE', `/recipient/${gone.id}`, 'alice')).status, 200);
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    const { page } = b;
    const res = await page.goto(`${ferry.url}/?s=download&token=${gone.token}`);
    assert.is(res?.status(), 410);
    assert.is(
      await page.locator('.error-page .error-reason').innerText(),
      'The sender withdrew this link: it no longer gives access to their files. Ask them if you still need them.',
    );
    await page.goto(`${ferry.url}/?s=download&token=${gone.token}&lang=de`);
    assert.match(
      await page.locator('.error-page .error-reason').innerText(),
      'Der Absender hat diesen Link zurückgezogen',
    );
    await shot(page, 'honest-withdrawn-link');

    assert.is((await rest(ferry.url, 'PUT', `/transfer/${t.id}`, 'alice', { closed: true })).status, 200);
    await page.goto(`${ferry.url}/?s=transfers&lang=en`);
    const row = page.locator('table.transfers tbody tr', { hasText: 'Withdrawn' }).first();
    await row.locator('button', { hasText: 'Details' }).click();
    const details = page.locator('.details');
    await details.locator('.recipient-list li').first().waitFor();
    assert.is(
      await details.locator('a', { hasText: 'Download link' }).count(),
      0,
      'no download link on a closed transfer',
    );
    const when = await details.locator('p.when').innerText();
    assert.match(when, /^Closed on \d{1,2} [A-Z][a-z]{2} \d{4}/);
    assert.not.match(when, 'Expires');
  } finally {
    await b.close();
  }
});

test('the built-in inbox shows a mail as the recipient sees it: the HTML part in a sandboxed frame, no script, working links', async () => {
  await sendViaRest(ferry.url, 'alice', 'Inbox view', { 'b.txt': 'bbb' }, ['ivy@example.org']);
  const b = await openBrowser({ headers: asUserHeaders('root') });
  try {
    const { page } = b;
    await page.goto(`${ferry.url}/?s=mail-sink`);
    await page.locator('table.mail-list tbody tr', { hasText: 'Inbox view' }).first().locator('a').click();
    const frameEl = page.locator('iframe.mail-frame');
    await frameEl.waitFor();
    assert.is(
      await frameEl.getAttribute('sandbox'),
      'allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation',
    );
    const frame = page.frameLocator('iframe.mail-frame');
    const link = frame.locator('a[href*="s=download"]').first();
    await link.waitFor();
    // The text part's address is a link too.
    assert.ok(
      (await page.locator('pre.mail-text a[href*="s=download"]').count()) >= 1,
      'the plain text link is clickable',
    );
    // The frame runs no script and loads nothing remote: its own policy says so.
    const src = await frameEl.getAttribute('src');
    const head = await fetch(new URL(src!, ferry.url), { headers: asUserHeaders('root') });
    assert.match(head.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.match(head.headers.get('content-security-policy') ?? '', /sandbox/);
    assert.not.match(head.headers.get('content-security-policy') ?? '', /script-src/);
    await shot(page, 'honest-inbox-message');
    await noSeriousAxe(page, 'inbox message');
    await link.click();
    await page.waitForURL(/s=download&token=/);
    await page.locator('section.download h1', { hasText: 'Inbox view' }).waitFor();
  } finally {
    await b.close();
  }
});

test.run();
