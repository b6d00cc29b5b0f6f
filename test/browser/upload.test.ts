import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page, Route } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import {
  openBrowser,
  startFerry,
  shot,
  makeFile,
  watchProgress,
  rest,
  sha256,
  HEADER_SP_CONFIG,
  asUserHeaders,
  BrowserSession,
  fillUploadForm,
} from './harness';
import { zipEntries } from './zip-reader';
import { mailSink } from './fixtures';

// Uploading in a real browser against dist/ferry: progress, the recipients' mail and downloads, a network
// cut, a reload and a browser restart.

const CHUNK = 5 * 1024 * 1024;
let ferry: BinaryServer;
let dir: string;
let sink: Awaited<ReturnType<typeof mailSink>>;
test.before(async () => {
  dir = tempDir('ferry-browser-files-');
  sink = await mailSink(dir);
  ferry = await startFerry({ ...HEADER_SP_CONFIG, upload_chunk_size: CHUNK, mail: sink.config });
});

/** The uploaded files and the links of the first test, for the delivery test after it. */
let sent: { files: Record<string, { path: string; size: number; sha256: string }>; transfer: any } | null = null;
test.after(async () => {
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function fillForm(page: Page, files: string[], recipients: string[], subject: string) {
  return fillUploadForm(page, ferry.url, files, recipients.join(', '), subject);
}

/** Bytes put on the wire by chunk PUTs, from the browser's own requests (aborted ones included). */
function countChunkBytes(b: BrowserSession): { bytes: number; requests: number } {
  const c = { bytes: 0, requests: 0 };
  b.context.on('request', (r) => {
    if (r.method() === 'PUT' && /\/file\/\d+\/chunk\/\d+/.test(r.url())) {
      c.requests += 1;
      c.bytes += Number(r.headers()['x-service-chunk-size'] ?? 0);
    }
  });
  return c;
}

async function transferBySubject(user: string, subject: string) {
  const list = await rest(ferry.url, 'GET', '/transfer', user);
  assert.is(list.status, 200, `GET /transfer: ${JSON.stringify(list.json)}`);
  const t = (list.json as any[]).find((x) => x.subject === subject);
  assert.ok(t, `transfer "${subject}" listed`);
  return t;
}

async function assertStored(user: string, transfer: any, files: { size: number }[]) {
  assert.equal(transfer.files.map((f: any) => f.size).sort(), files.map((f) => f.size).sort());
  for (const f of transfer.files) {
    const r = await rest(ferry.url, 'GET', `/file/${f.id}`, user);
    assert.is(r.json.received, f.size, `${f.name}: every byte stored`);
  }
}

test('upload three files (one of 200 MB) to two recipients: the progress bar advances, the summary lists the links', async () => {
  const big = makeFile(dir, 'big.bin', 200 * 1024 * 1024);
  const notes = makeFile(dir, 'notes.txt', 12_345);
  const photo = makeFile(dir, 'photo.jpg', 3 * 1024 * 1024 + 7);
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  let shotTaken = false;
  try {
    await fillForm(b.page, [big.path, notes.path, photo.path], ['anna@example.org', 'ben@example.org'], 'Three files');
    assert.is(await b.page.locator('.file-list li').count(), 3);
    await shot(b.page, 'upload-form-filled');
    const started = Date.now();
    await b.page.click('button.primary');
    await b.page.locator('#progress-total').waitFor();
    const seen = await watchProgress(b.page, 240_000, (v) =>
      v >= 10 && !shotTaken ? ((shotTaken = true), shot(b.page, 'upload-progress')) : undefined,
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `browser upload of ${((big.size + notes.size + photo.size) / 1e6).toFixed(0)} MB: ${seconds.toFixed(1)} s, ${((big.size + notes.size + photo.size) / 1e6 / seconds).toFixed(0)} MB/s`,
    );
    // The page draws progress twice a second (docs/performance.md), so a fast upload shows few values: what a
    // sender relies on is a bar that moves between the start and the summary.
    assert.ok(
      seen.some((v) => v > 0 && v < 100),
      `a value between 0 and 100 shown; progress values seen: ${seen.join(',')}`,
    );
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1], 'never goes back');
    await b.page.locator('#summary-title').waitFor();
    const links = await b.page
      .locator('.links a.download-link')
      .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    assert.is(links.length, 2);
    for (const l of links) assert.match(l, /\?s=download&token=[A-Za-z0-9_-]{20,}/);
    await shot(b.page, 'upload-summary');
    const t = await transferBySubject('alice', 'Three files');
    await assertStored('alice', t, [big, notes, photo]);
    assert.equal(t.recipients.map((r: any) => r.email).sort(), ['anna@example.org', 'ben@example.org']);
    sent = { files: { 'big.bin': big, 'notes.txt': notes, 'photo.jpg': photo }, transfer: t };
  } finally {
    await b.close();
  }
});

test("the recipients' mail arrives in the sink; its link downloads one file and the zip, SHA-256 equal", async () => {
  assert.ok(sent, 'needs the upload of the first test');
  const { transfer, files } = sent!;
  const byEmail = new Map<string, string>();
  for (let i = 0; i < 150 && byEmail.size < 2; i++) {
    for (const mail of await sink.mails()) {
      for (const r of transfer.recipients)
        if (mail.to.includes(r.email) && mail.text.includes(`token=${r.token}`)) byEmail.set(r.email, r.download_url);
    }
    if (byEmail.size < 2) await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(
    [...byEmail.keys()].sort(),
    ['anna@example.org', 'ben@example.org'],
    'one mail per recipient, with its own link',
  );
  const b = await openBrowser(); // a recipient: no account, only the link from the mail
  try {
    await b.page.goto(byEmail.get('anna@example.org')!);
    await b.page.waitForLoadState('networkidle');
    await shot(b.page, 'download-page');
    const notesId = transfer.files.find((f: any) => f.name === 'notes.txt').id;
    const hrefs = await b.page
      .locator('a[href*="download?"]')
      .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).getAttribute('href') ?? ''));
    const one = hrefs.find((h) => new RegExp(`files_ids=${notesId}(&|$)`).test(h) && !h.includes('archive_format'));
    const zip =
      hrefs.find((h) => h.includes('archive_format=zip')) ?? hrefs.find((h) => /files_ids=\d+(%2C|,)\d+/.test(h));
    assert.ok(one, `a link for notes.txt alone among ${hrefs.join(' ')}`);
    assert.ok(zip, `a link for the zip among ${hrefs.join(' ')}`);
    const save = async (href: string, name: string) => {
      const [download] = await Promise.all([
        b.page.waitForEvent('download', { timeout: 120_000 }),
        b.page.locator(`a[href="${href}"]`).first().click(),
      ]);
      const to = path.join(dir, name);
      await download.saveAs(to);
      return to;
    };
    assert.is(sha256(await save(one!, 'got-notes.txt')), files['notes.txt'].sha256);
    const entries = await zipEntries(await save(zip!, 'got.zip'));
    for (const [name, f] of Object.entries(files)) {
      const e = entries.find((x) => x.name.endsWith(name));
      assert.ok(e, `${name} in the zip`);
      assert.is(e!.sha256, f.sha256, `${name} bytes equal`);
    }
    await b.page.setViewportSize({ width: 360, height: 800 });
    const over = await b.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(over <= 0, `the download page overflows a phone screen by ${over}px`);
    await shot(b.page, 'phone-download-page');
  } finally {
    await b.close();
  }
});

test('the network cut mid-upload: the page says so, then the upload finishes by itself', async () => {
  const file = makeFile(dir, 'cut.bin', 60 * 1024 * 1024);
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    let passed = 0;
    let cut = false;
    await b.page.route(/\/file\/\d+\/chunk\/\d+/, async (route: Route) => {
      if (cut) return route.abort('internetdisconnected');
      if (++passed === 3) {
        cut = true; // the link drops after the third chunk and comes back 4 s later
        setTimeout(() => (cut = false), 4000);
      }
      return route.continue();
    });
    await fillForm(b.page, [file.path], ['carl@example.org'], 'Network cut');
    await b.page.click('button.primary');
    await b.page.locator('.status.phase-waiting').waitFor({ timeout: 20_000 });
    await shot(b.page, 'upload-network-cut');
    await watchProgress(b.page, 120_000);
    assert.not.ok(cut, 'finished only after the link came back');
    await assertStored('alice', await transferBySubject('alice', 'Network cut'), [file]);
  } finally {
    await b.close();
  }
});

async function resumeAfter(interrupt: 'reload' | 'restart') {
  const a = makeFile(dir, `${interrupt}-a.bin`, 48 * 1024 * 1024 + 123);
  const small = makeFile(dir, `${interrupt}-b.txt`, 4321);
  const total = a.size + small.size;
  let b = await openBrowser({ headers: asUserHeaders('alice') });
  const userDataDir = b.userDataDir;
  let sentBytes = countChunkBytes(b);
  const slow = (page: Page) =>
    page.route(/\/file\/\d+\/chunk\/\d+/, async (route: Route) => {
      await new Promise((r) => setTimeout(r, 150)); // a slower link, so the interruption lands mid-upload
      await route.continue().catch(() => undefined);
    });
  try {
    await slow(b.page);
    const subject = `Resume after ${interrupt}`;
    await fillForm(b.page, [a.path, small.path], ['dora@example.org'], subject);
    await b.page.click('button.primary');
    await b.page.waitForFunction(
      () => Number(document.querySelector('#progress-total')?.getAttribute('value')) >= 30,
      null,
      { timeout: 60_000 },
    );
    if (interrupt === 'reload') {
      await b.page.reload();
    } else {
      await b.close();
      b = await openBrowser({ headers: asUserHeaders('alice'), userDataDir });
      const before = sentBytes.bytes;
      sentBytes = countChunkBytes(b);
      sentBytes.bytes = before;
      await b.page.goto(`${ferry.url}/`);
    }
    await slow(b.page);
    const item = b.page.locator('.resume-item');
    await item.waitFor();
    assert.match((await item.textContent()) ?? '', subject);
    await shot(b.page, `upload-resume-${interrupt}`);
    await item.locator('input[type=file]').setInputFiles([a.path, small.path]);
    await watchProgress(b.page, 120_000);
    const resent = sentBytes.bytes - total;
    assert.ok(resent <= 4 * CHUNK, `${resent} bytes sent twice; at most the 4 chunks in flight (${4 * CHUNK})`);
    await assertStored('alice', await transferBySubject('alice', subject), [a, small]);
  } finally {
    await b.close();
  }
}

test('a reload mid-upload: the page asks for the files again and sends only what is missing', () =>
  resumeAfter('reload'));

test('a browser restart mid-upload: the unfinished upload is remembered and resumes', () => resumeAfter('restart'));

test.run();
