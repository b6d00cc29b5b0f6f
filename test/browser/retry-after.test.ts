import fs from 'node:fs';
import crypto from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BinaryServer } from '../helpers/binary';
import { type CuttingProxy, startCuttingProxy } from '../helpers/cutting-proxy';
import { tempDir } from '../helpers/server';
import { type S3Server, startS3, s3Storage } from '../helpers/system/s3';
import { asUserHeaders, HEADER_SP_CONFIG, makeFile, openBrowser, startFerry, watchProgress } from './harness';

// The page waits as long as the server asks (Retry-After), not only its own backoff: ferry's store (S3, behind a
// relay that can drop it) goes away for 3 s as the upload begins; every chunk is refused with 503
// storage_unavailable and Retry-After: 5, and the page's own first wait would be a second.

let s3: S3Server;
let proxy: CuttingProxy;
let ferry: BinaryServer;
let dir: string;
test.before(async () => {
  dir = tempDir('ferry-browser-retry-after-');
  s3 = await startS3();
  proxy = await startCuttingProxy(s3.endpoint);
  ferry = await startFerry({
    ...HEADER_SP_CONFIG,
    storage: s3Storage(s3, `retry-after-${crypto.randomBytes(4).toString('hex')}/`, { endpoint: proxy.url }),
  });
});
test.after(async () => {
  await ferry?.stop();
  await proxy?.close();
  await s3?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("the store away for a moment: the page's chunks wait the Retry-After the server gives, then the upload completes", async () => {
  const file = makeFile(dir, 'later.bin', 12 * 1024 * 1024);
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    const { page } = b;
    const sent: number[] = [];
    const refused: { at: number; retryAfter: string | undefined }[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT' && /\/chunk\//.test(r.url())) sent.push(Date.now());
    });
    page.on('response', (r) => {
      if (/\/chunk\//.test(r.url()) && r.status() === 503)
        refused.push({ at: Date.now(), retryAfter: r.headers()['retry-after'] });
    });
    await page.goto(`${ferry.url}/`);
    await page.locator('#upload-title').waitFor();
    await page.setInputFiles('#pick-files', [file.path]);
    await page.click('label:has-text("Get a link")');
    proxy.cut(3000);
    await page.click('button.primary');
    await watchProgress(page, 120_000);
    assert.ok(refused.length > 0, 'chunks were refused while the store was away');
    assert.ok(
      refused.every((r) => r.retryAfter === '5'),
      `Retry-After ${refused.map((r) => r.retryAfter).join()}`,
    );
    const first = refused[0].at;
    const next = sent.find((t) => t > first);
    assert.ok(next !== undefined, 'the chunks were sent again');
    assert.ok(
      next - first >= 4_500,
      `the next chunk went ${next - first} ms after the first refusal: the server asked for 5 s, the page's own backoff is 1 s`,
    );
  } finally {
    await b.close();
  }
});

test.run();
