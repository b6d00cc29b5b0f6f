import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Route } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { asUserHeaders, HEADER_SP_CONFIG, makeFile, openBrowser, rest, startFerry, watchProgress } from './harness';

// Resuming checks the files chosen again against the record (name, size, modification time) in every case,
// also when every byte had already arrived and only the completion was missing: a 31 MB file completed an
// 80 MB upload's resume.

let ferry: BinaryServer;
let dir: string;
test.before(async () => {
  dir = tempDir('ferry-browser-resume-check-');
  ferry = await startFerry({ ...HEADER_SP_CONFIG });
});
test.after(async () => {
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function transferBySubject(subject: string) {
  const list = await rest(ferry.url, 'GET', '/transfer', 'alice');
  return (list.json as any[]).find((x) => x.subject === subject);
}

test('every byte sent but the file not completed: another file chosen to resume is refused, the right one completes', async () => {
  const big = makeFile(dir, 'big.bin', 24 * 1024 * 1024);
  const smaller = makeFile(dir, 'smaller.bin', 9 * 1024 * 1024);
  fs.mkdirSync(path.join(dir, 'other'));
  const sameName = makeFile(path.join(dir, 'other'), 'big.bin', 24 * 1024 * 1024 - 1);
  const subject = 'All bytes, no completion';
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    const { page } = b;
    // Every chunk goes through; completing the file does not (the link drops at that moment, every time).
    let completions = 0;
    let blocking = true;
    const blockCompletion = (route: Route) => {
      if (blocking && route.request().method() === 'PUT') {
        completions += 1;
        return route.abort('internetdisconnected');
      }
      return route.continue();
    };
    await page.route(/\/file\/\d+(\?|$)/, blockCompletion);
    await page.goto(`${ferry.url}/`);
    await page.locator('#upload-title').waitFor();
    await page.setInputFiles('#pick-files', [big.path]);
    await page.click('label:has-text("Get a link")');
    await page.fill('#upload-subject', subject);
    await page.click('button.primary');
    for (let i = 0; i < 600 && completions === 0; i++) await page.waitForTimeout(100);
    assert.ok(completions > 0, 'the completion was tried');
    const t = await transferBySubject(subject);
    assert.is((await rest(ferry.url, 'GET', `/file/${t.files[0].id}`, 'alice')).json.received, big.size);
    await page.waitForTimeout(1_500); // the record reaches the page's storage at most a second later
    await page.reload();
    blocking = false;

    const item = page.locator('.resume-item');
    await item.waitFor();
    assert.match((await item.textContent()) ?? '', subject);
    for (const wrong of [smaller, sameName]) {
      await item.locator('input[type=file]').setInputFiles([wrong.path]);
      await item.locator('.error').waitFor();
      assert.match((await item.locator('.error').textContent()) ?? '', /still needed.*big\.bin/);
      await page.waitForTimeout(1_000);
      assert.not.ok(await page.locator('#progress-total').count(), 'no upload started');
      const now = await transferBySubject(subject);
      assert.is.not(now.status, 'available', `${path.basename(wrong.path)} (${wrong.size} bytes) completed the upload`);
    }
    await item.locator('input[type=file]').setInputFiles([big.path]);
    await watchProgress(page, 60_000);
    assert.is((await transferBySubject(subject)).status, 'available');
  } finally {
    await b.close();
  }
});

test.run();
