import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BinaryServer } from '../helpers/binary';
import { freePort, tempDir } from '../helpers/server';
import {
  openBrowser,
  startFerry,
  shot,
  makeFile,
  watchProgress,
  parseEta,
  HEADER_SP_CONFIG,
  asUserHeaders,
  emulatedLink,
} from './harness';

// Progress on a slow link: Chromium's own network emulation (the DevTools protocol) holds the upload to a
// fixed rate, and the page must show that rate, bytes counted as they leave, not chunks as they are
// acknowledged; the time left only once it means something; and a warning before leaving mid-upload.

const LINK = 1_000_000; // bytes per second, the "1 MB/s link" of the report
let ferry: BinaryServer;
let dir: string;
test.before(async () => {
  dir = tempDir('ferry-browser-progress-');
  ferry = await startFerry({
    ...HEADER_SP_CONFIG,
    mail: { transport: null, sink: { host: '127.0.0.1', port: await freePort(), dir: path.join(dir, 'sink') } },
  });
});
test.after(async () => {
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** "1.0 MB/s", "980 kB/s", "1,0 MB/s" → bytes per second. */
function parseRate(text: string): number {
  const m = /([\d.,]+)\s*(B|kB|MB|GB)\/s/.exec(text);
  if (!m) return NaN;
  return Number(m[1].replace(',', '.')) * { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 }[m[2] as 'B'];
}

interface Sample {
  at: number;
  pct: number;
  rate: number;
  eta: number | null;
  text: string;
}

test('a throttled 1 MB/s upload: the bar moves at once, the shown rate stays within 25 % of the true one, the time left comes late and is right', async () => {
  const size = 22 * 1024 * 1024;
  const file = makeFile(dir, 'slow.bin', size);
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    await (await emulatedLink(b))(LINK);
    await b.page.goto(`${ferry.url}/`);
    await b.page.locator('#upload-title').waitFor();
    await b.page.setInputFiles('#pick-files', [file.path]);
    await b.page.click('label:has-text("Get a link")');
    // The first chunk request marks the start of the bytes on the wire.
    let firstChunk = 0;
    let lastChunkDone = 0;
    b.page.on('request', (r) => {
      if (!firstChunk && r.method() === 'PUT' && /\/chunk\//.test(r.url())) firstChunk = Date.now();
    });
    b.page.on('requestfinished', (r) => {
      if (r.method() === 'PUT' && /\/chunk\//.test(r.url())) lastChunkDone = Date.now();
    });
    await b.page.click('button.primary');
    await b.page.locator('#progress-total').waitFor();

    const samples: Sample[] = [];
    let shotTaken = false;
    for (let i = 0; i < 240 && !(await b.page.locator('#summary-title').count()); i++) {
      const s = await b.page
        .evaluate(() => ({
          pct: Number(document.querySelector('#progress-total')?.getAttribute('value') ?? NaN),
          speed: document.querySelector('.figures .speed:not(.measuring)')?.textContent ?? '',
          eta: document.querySelector('.figures .eta')?.textContent ?? null,
          text: document.querySelector('.figures')?.textContent ?? '',
        }))
        .catch(() => null);
      if (s && firstChunk && !Number.isNaN(s.pct))
        samples.push({
          at: Date.now(),
          pct: s.pct,
          rate: parseRate(s.speed),
          eta: s.eta === null ? null : parseEta(s.eta),
          text: s.text,
        });
      if (!shotTaken && s?.eta) {
        shotTaken = true;
        await shot(b.page, 'upload-progress-throttled');
      }
      await b.page.waitForTimeout(250);
    }
    await watchProgress(b.page, 60_000);
    assert.ok(firstChunk && lastChunkDone > firstChunk, 'chunk requests seen');
    const seconds = (lastChunkDone - firstChunk) / 1000;
    const trueRate = size / seconds;
    const shown = samples.filter((s) => s.rate > 0);
    const rates = shown.map((s) => s.rate);
    console.log(
      `throttled to ${LINK / 1e6} MB/s: ${(size / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s = true rate ${(trueRate / 1e6).toFixed(3)} MB/s; ` +
        `shown rates ${(Math.min(...rates) / 1e6).toFixed(2)}–${(Math.max(...rates) / 1e6).toFixed(2)} MB/s over ${shown.length} samples; ` +
        `first rate after ${((shown[0].at - firstChunk) / 1000).toFixed(1)} s, first time left after ${(((samples.find((s) => s.eta !== null)?.at ?? 0) - firstChunk) / 1000).toFixed(1)} s`,
    );
    // The emulation holds the link (else this test proves nothing).
    assert.ok(Math.abs(trueRate - LINK) / LINK < 0.3, `the link ran at ${trueRate} B/s, not about ${LINK}`);

    // Bytes count as they leave: a few seconds in, the bar has moved (it stayed at 0 % for 20 s before).
    const early = samples.filter((s) => s.at - firstChunk <= 4_000);
    assert.ok(
      early.some((s) => s.pct >= 5),
      `after 4 s the bar shows ${early.map((s) => s.pct).join(',')} %`,
    );
    for (let i = 1; i < samples.length; i++)
      assert.ok(
        samples[i].pct >= samples[i - 1].pct,
        `the bar never goes back: ${samples.map((s) => s.pct).join(',')}`,
      );

    // Every rate shown is within 25 % of the true one, and one is shown for most of the upload.
    assert.ok(shown.length >= samples.length * 0.6, `a rate shown in ${shown.length} of ${samples.length} samples`);
    for (const s of shown)
      assert.ok(
        Math.abs(s.rate - trueRate) / trueRate <= 0.25,
        `shown "${s.text}" at ${((s.at - firstChunk) / 1000).toFixed(1)} s; true rate ${(trueRate / 1e6).toFixed(3)} MB/s`,
      );

    // No time left in the first seconds; once shown, it is near the real time left.
    const withEta = samples.filter((s) => s.eta !== null);
    assert.ok(withEta.length > 0, 'a time left is shown');
    assert.ok(withEta[0].at - firstChunk >= 5_000, `time left shown ${withEta[0].at - firstChunk} ms after the start`);
    for (const s of withEta) {
      const real = (lastChunkDone - s.at) / 1000;
      // The page shows time left in 5 s steps, rounded up; a sample is read up to a second after it was drawn.
      assert.ok(
        Math.abs(s.eta! - real) <= Math.max(6, real * 0.3),
        `"${s.text}" at ${((s.at - firstChunk) / 1000).toFixed(1)} s; really ${real.toFixed(0)} s left`,
      );
    }
    // The time left counts down to the end: below "5 s left" (where it stopped before), and none once every
    // byte has left (it said "5 s left" at 100 %).
    assert.ok(
      withEta.some((s) => s.eta! < 5),
      `the last times left shown: ${withEta
        .slice(-4)
        .map((s) => s.text)
        .join(' | ')}`,
    );
    const full = samples.filter((s) => s.pct >= 100);
    assert.ok(
      full.every((s) => s.eta === null),
      `at 100 %: ${full.map((s) => s.text).join(' | ')}`,
    );
  } finally {
    await b.close();
  }
});

test('leaving or reloading during an upload asks first; staying keeps the upload going', async () => {
  const file = makeFile(dir, 'leave.bin', 12 * 1024 * 1024);
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    await (await emulatedLink(b, 0))(2 * LINK);
    await b.page.goto(`${ferry.url}/`);
    await b.page.locator('#upload-title').waitFor();
    // Before an upload, leaving asks nothing.
    let asked = 0;
    b.page.on('dialog', (d) => {
      if (d.type() === 'beforeunload') {
        asked += 1;
        void d.dismiss(); // "stay on this page"
      }
    });
    await b.page.setInputFiles('#pick-files', [file.path]);
    await b.page.click('label:has-text("Get a link")');
    await b.page.click('button.primary');
    await b.page.locator('.figures .speed').waitFor();
    await b.page.reload({ timeout: 3_000 }).catch(() => undefined); // refused by the dialog: no navigation
    for (let i = 0; i < 30 && asked === 0; i++) await b.page.waitForTimeout(100);
    assert.is(asked, 1, 'the browser asked before reloading');
    assert.ok(await b.page.locator('#progress-total').count(), 'still on the upload');
    await watchProgress(b.page, 60_000);
    // Once done, leaving asks nothing.
    await b.page.reload();
    await b.page.locator('#upload-title').waitFor();
    assert.is(asked, 1);
  } finally {
    await b.close();
  }
});

test.run();
