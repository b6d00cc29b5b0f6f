import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import {
  openBrowser,
  startFerry,
  shot,
  makeFile,
  rest,
  HEADER_SP_CONFIG,
  asUserHeaders,
  BrowserSession,
  addLocalUser,
} from './harness';

// Folders from the upload page: a picked folder and a dropped one go up with their tree, as
// FileSender 3 sends them; and the profile page hands out the filesender.py.ini of FileSender's client.

let ferry: BinaryServer;
let b: BrowserSession;
let dir: string;
test.before(async () => {
  dir = tempDir('ferry-browser-folders-');
  ferry = await startFerry({ ...HEADER_SP_CONFIG, upload_chunk_size: 1024 * 1024, mail: { transport: null } });
  b = await openBrowser({ headers: asUserHeaders('alice') });
});
test.after(async () => {
  await b?.close();
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function send(page: Page, subject: string) {
  await page.fill('#upload-recipients', 'anna@example.org');
  await page.keyboard.press('Enter');
  await page.fill('#upload-subject', subject);
  await page.click('button.primary');
  await page.locator('#summary-title').waitFor({ timeout: 60_000 });
  const list = await rest(ferry.url, 'GET', '/transfer', 'alice');
  return (list.json as any[]).find((t) => t.subject === subject);
}

test('a folder chosen with "choose a folder" is sent with its tree', async () => {
  const root = path.join(dir, 'album');
  fs.mkdirSync(path.join(root, '2026', 'summer'), { recursive: true });
  const files = {
    'album/2026/summer/a.bin': makeFile(path.join(root, '2026', 'summer'), 'a.bin', 1024 * 1024 + 3),
    'album/2026/b.bin': makeFile(path.join(root, '2026'), 'b.bin', 10),
    'album/c d.txt': makeFile(root, 'c d.txt', 5),
  };
  await b.page.goto(`${ferry.url}/`);
  await b.page.locator('#upload-title').waitFor();
  await b.page.setInputFiles('#pick-folder', root);
  const shown = await b.page.locator('.file-list li .name').allTextContents();
  assert.equal(shown.sort(), Object.keys(files).sort());
  const t = await send(b.page, 'Picked folder');
  assert.ok(t, 'transfer listed');
  assert.equal(t.files.map((f: any) => f.name).sort(), Object.keys(files).sort());
  for (const f of t.files) assert.is(f.sha256, files[f.name as keyof typeof files].sha256, f.name);
});

test('a dropped folder is walked and sent with its tree, beside a dropped file', async () => {
  await b.page.goto(`${ferry.url}/`);
  await b.page.locator('#upload-title').waitFor();
  // No test driver can drag a real folder onto a page, so the drop carries files whose entries answer as
  // Chromium's File and Directory Entries do for a dropped folder (fullPath, isFile, createReader in batches).
  // A string, so the test runner's transform of functions cannot reach into the page.
  await b.page.evaluate(`{
    const file = (name, text) => new File([text], name, { type: 'application/octet-stream' });
    const fileEntry = (fullPath, f) => ({ isFile: true, isDirectory: false, name: f.name, fullPath, file: (ok) => ok(f) });
    const dirEntry = (fullPath, children) => ({
      isFile: false,
      isDirectory: true,
      name: fullPath.split('/').pop(),
      fullPath,
      createReader() {
        const batches = [children.slice(0, 1), children.slice(1), []];
        return { readEntries: (ok) => ok(batches.shift() ?? []) };
      },
    });
    const folder = dirEntry('/scans', [
      fileEntry('/scans/p1.txt', file('p1.txt', 'page one')),
      dirEntry('/scans/2026', [fileEntry('/scans/2026/p2.txt', file('p2.txt', 'page two'))]),
    ]);
    const loose = file('loose.txt', 'loose');
    const entries = [folder, fileEntry('/loose.txt', loose)];
    const dt = new DataTransfer();
    dt.items.add(loose);
    const items = entries.map((entry) => ({ kind: 'file', type: '', getAsFile: () => null, webkitGetAsEntry: () => entry }));
    const drop = new DragEvent('drop', { bubbles: true, cancelable: true });
    Object.defineProperty(drop, 'dataTransfer', { value: { items, files: dt.files, types: ['Files'] } });
    document.querySelector('.dropzone').dispatchEvent(drop);
  }`);
  await b.page.locator('.file-list li').nth(2).waitFor();
  const shown = await b.page.locator('.file-list li .name').allTextContents();
  assert.equal(shown.sort(), ['loose.txt', 'scans/2026/p2.txt', 'scans/p1.txt']);
  const t = await send(b.page, 'Dropped folder');
  assert.ok(t, 'transfer listed');
  assert.equal(t.files.map((f: any) => `${f.name}:${f.size}`).sort(), [
    'loose.txt:5',
    'scans/2026/p2.txt:8',
    'scans/p1.txt:8',
  ]);
  await shot(b.page, 'upload-dropped-folder');
});

test('the profile page offers filesender.py.ini: the download holds the user, the secret and the REST address', async () => {
  // Signed in with a local account: the browser's own download carries the session cookie (a proxy's headers,
  // as the tests above use, are added by the test driver to page requests only).
  const local = await startFerry({});
  const browser = await openBrowser();
  try {
    addLocalUser(local, 'carol@example.org', 'carol@example.org', 'carol password 1');
    const { page } = browser;
    await page.goto(`${local.url}/?s=profile`);
    await page.fill('#login-user', 'carol@example.org');
    await page.fill('#login-password', 'carol password 1');
    await page.click('form.login-form button[type=submit]');
    await page.locator('#api-title').waitFor();
    const remoteConfig = await page.inputValue('#remote-config');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download filesender.py.ini' }).click(),
    ]);
    assert.is(download.suggestedFilename(), 'filesender.py.ini');
    const saved = path.join(dir, 'filesender.py.ini');
    await download.saveAs(saved);
    const text = fs.readFileSync(saved, 'utf8');
    assert.match(text, new RegExp(`^base_url = ${local.url}/rest\\.php$`, 'm'));
    assert.match(text, /^username = carol@example\.org$/m);
    assert.match(text, new RegExp(`^apikey = ${remoteConfig.split('|')[2]}$`, 'm'));
    await shot(page, 'profile-filesender-ini');
    assert.equal(
      browser.errors.filter((e) => !/status of 40[14]/.test(e)),
      [],
      'no script errors',
    );
  } finally {
    await browser.close();
    await local.stop();
  }
});

test.run();
