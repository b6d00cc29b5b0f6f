import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { BINARY } from '../helpers/binary';
import { freePort, tempDir } from '../helpers/server';
import { ARTIFACTS, openBrowser, makeFile } from './harness';
import { axe } from './fixtures';
import { watchProcess } from '../helpers/internal-errors';

// README, "First steps", done as a new user does it: dist/ferry serve in an empty directory with no
// configuration at all (what `npm start` runs), the password it prints, the upload page, the built-in inbox.
// The screenshots the README shows are taken here (docs/first-steps/), so they show what the pages do today.

const DOCS = path.resolve(__dirname, '../../docs/first-steps');
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** One screenshot of the viewport, for the README (docs/first-steps/) and with the other artifacts. */
async function picture(page: Page, name: string): Promise<void> {
  const png = await page.screenshot({ fullPage: false });
  fs.mkdirSync(DOCS, { recursive: true });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(path.join(DOCS, `${name}.png`), png);
  fs.writeFileSync(path.join(ARTIFACTS, `first-steps-${name}.png`), png);
}

async function noSeriousAxe(page: Page, where: string): Promise<void> {
  const serious = (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious, [], `axe: ${where}`);
}

test('first steps on the embedded defaults: log in with the printed password, send a file, read the mail in the built-in inbox', async () => {
  const dir = tempDir('ferry-first-steps-');
  const port = await freePort();
  // No ferry.json, no FERRY_CONFIG: the embedded defaults, data in ./data (--port only because 8080 may be taken here).
  const env = { PATH: '/usr/bin:/bin', HOME: dir };
  const proc = spawn(BINARY, ['serve', '--port', String(port)], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise((r) => proc.once('exit', r));
  watchProcess(
    proc,
    `ferry serve in ${dir}`,
    () => out,
    () => false,
  );
  const b = await openBrowser();
  try {
    for (let i = 0; i < 150 && !/listening on http/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, `listening on http://127.0.0.1:${port}`);
    const password = /created the first account: user "admin", password (\S+) \(shown once/.exec(out)?.[1];
    assert.ok(password, `the first start prints the password:\n${out}`);
    assert.match(out, `mail: kept in the built-in inbox ${path.join(dir, 'data', 'mail-sink')}, not delivered`);
    const url = `http://localhost:${port}`;
    const { page } = b;

    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      // 1. Open the page: the login form.
      await page.goto(`${url}/`);
      await page.locator('form.login-form').waitFor();
      await page.fill('#login-user', 'admin');
      await page.fill('#login-password', password!);
      await picture(page, `${size.name}-1-log-in`);
      await noSeriousAxe(page, `login, ${size.name}`);
      await page.click('form.login-form button[type=submit]');

      // 2. Send a file: the upload page, with the admins' notice that mail stays in the built-in inbox.
      await page.locator('#upload-title').waitFor();
      assert.match(
        await page.locator('aside.site-notice').innerText(),
        'Mail is kept in the built-in inbox, not delivered',
      );
      fs.mkdirSync(path.join(dir, size.name));
      const file = makeFile(path.join(dir, size.name), 'holiday-photos.zip', 300_000);
      await page.setInputFiles('#pick-files', [file.path]);
      await page.fill('#upload-recipients', 'friend@example.org');
      await page.keyboard.press('Enter');
      await page.fill('#upload-subject', 'Holiday photos');
      await page.locator('.chips li', { hasText: 'friend@example.org' }).waitFor();
      await picture(page, `${size.name}-2-send`);
      await page.click('button.primary');
      await page.locator('#summary-title').waitFor({ timeout: 60_000 });
      assert.is(await page.locator('#summary-title').innerText(), 'Your files are uploaded');
      // The built-in inbox takes the mail at once: "queued" turns into "kept in the built-in inbox", never "sent".
      await page
        .locator('.links li', { hasText: 'friend@example.org' })
        .locator('.delivery-kept')
        .waitFor({ timeout: 20_000 });
      assert.is(
        await page.locator('.summary .mail-status').innerText(),
        'The e-mail was kept in the built-in inbox; not delivered (no mail server is configured). Send the links below yourself.',
      );
      await page.locator('#summary-title').evaluate((h) => h.blur());
      await picture(page, `${size.name}-3-uploaded`);
      await noSeriousAxe(page, `summary, ${size.name}`);

      // 3. Read the inbox: the notice's link, the newest message, its download link.
      await page.locator('aside.site-notice a', { hasText: 'Open the inbox' }).click();
      await page.locator('table.mail-list').waitFor();
      const newest = page.locator('table.mail-list tbody tr').first();
      assert.match(await newest.innerText(), 'friend@example.org');
      await newest.locator('a').click();
      await page.locator('pre.mail-text').waitFor();
      assert.match(await page.locator('h1').innerText(), 'sent you files: Holiday photos');
      const text = await page.locator('pre.mail-text').innerText();
      const link = new RegExp(`${url}/\\?s=download&token=[A-Za-z0-9_-]+`).exec(text)?.[0];
      assert.ok(link, `the mail carries the download link:\n${text}`);
      await picture(page, `${size.name}-4-inbox`);
      await noSeriousAxe(page, `inbox message, ${size.name}`);
      await page.goto(link!);
      await page.locator('main', { hasText: 'holiday-photos.zip' }).waitFor();
      await page.goto(`${url}/logout`);
    }
  } finally {
    await b.close();
    proc.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
