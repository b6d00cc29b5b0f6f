import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page, Route } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { savedSha256 } from './fixtures';
import {
  openBrowser,
  startFerry,
  makeFile,
  rest,
  sha256,
  watchProgress,
  HEADER_SP_CONFIG,
  asUserHeaders,
  BrowserSession,
  fillUploadForm,
} from './harness';
import { encryptedSize } from '../../src/shared-crypto/format';

// The upload page's "Encrypt" switch in Chromium, against the server: files encrypted in the page's worker
// (4 chunks in flight) are stored as ciphertext only, and a fresh browser decrypts them byte-identical on the
// download page; a typed password shows its rules as it is typed; a generated one is shown once with a copy
// button; a reload mid-upload resumes with the password typed again (a wrong one is refused before any chunk
// is sealed with it), sending again at most the chunks that were in flight.

const CHUNK = 5 * 1024 * 1024;
const PASSWORD = 'Contract-Draft-2026!';
let ferry: BinaryServer;
let dir: string;

test.before(async () => {
  dir = tempDir('ferry-browser-e2ee-up-');
  ferry = await startFerry({
    ...HEADER_SP_CONFIG,
    upload_chunk_size: CHUNK,
    encryption_password_hash_iterations: 10000,
    mail: { transport: null },
  });
});
test.after(async () => {
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function fillForm(page: Page, files: string[], subject: string) {
  await fillUploadForm(page, ferry.url, files, 'rita@example.org', subject);
  await page.check('#upload-encrypt');
}

async function transferBySubject(subject: string): Promise<any> {
  const list = (await rest(ferry.url, 'GET', '/transfer', 'alice')).json as any[];
  const t = list.find((x) => x.subject === subject);
  assert.ok(t, `transfer "${subject}" exists`);
  return t;
}

/** Each stored file has the encrypted size and is not the plaintext. */
function assertCiphertextStored(files: { size: number; sha256: string }[]) {
  const stored: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }))
      (e.isDirectory() ? walk : (p: string) => stored.push(p))(path.join(d, e.name));
  };
  walk(path.join(ferry.dir, 'data', 'files'));
  for (const f of files) {
    const same = stored.filter((p) => fs.statSync(p).size === encryptedSize(f.size, CHUNK));
    assert.ok(same.length >= 1, `a stored file of ${encryptedSize(f.size, CHUNK)} bytes`);
    for (const p of same) assert.is.not(sha256(p), f.sha256);
  }
}

/** A fresh browser decrypts every file of the transfer on the download page (File System Access API → OPFS). */
async function decryptInFreshBrowser(token: string, password: string, files: { name: string; sha256: string }[]) {
  const b = await openBrowser();
  try {
    await b.context.addInitScript(() => {
      (window as any).showSaveFilePicker = async ({ suggestedName }: { suggestedName: string }) =>
        (await navigator.storage.getDirectory()).getFileHandle(suggestedName, { create: true });
    });
    await b.page.goto(`${ferry.url}/?s=download&token=${token}`);
    await b.page.fill('#e2ee-password', password);
    await b.page.click('form.e2ee-unlock button[type=submit]');
    await b.page.locator('.e2ee-status', { hasText: 'Password correct' }).waitFor({ timeout: 30_000 });
    for (const f of files) {
      const row = b.page.locator(`tr.e2ee-file[data-save-name="${f.name}"]`);
      await row.locator('button.e2ee-save').click();
      await b.page.waitForFunction(
        (n) => document.querySelector(`tr.e2ee-file[data-save-name="${n}"]`)?.getAttribute('data-saved') === 'true',
        f.name,
        { timeout: 120_000 },
      );
      assert.is(await savedSha256(b, f.name), f.sha256, f.name);
    }
  } finally {
    await b.close();
  }
}

/** Most chunk PUTs seen in flight at once. */
function watchInFlight(b: BrowserSession): { max: number } {
  const seen = { max: 0 };
  let now = 0;
  const isChunk = (r: { method(): string; url(): string }) =>
    r.method() === 'PUT' && /\/file\/\d+\/chunk\/\d+/.test(r.url());
  b.context.on('request', (r) => {
    if (isChunk(r)) seen.max = Math.max(seen.max, ++now);
  });
  const done = (r: { method(): string; url(): string }) => {
    if (isChunk(r)) now--;
  };
  b.context.on('requestfinished', done);
  b.context.on('requestfailed', done);
  return seen;
}

test('typed password: rules shown as typed; three files encrypted 4 chunks at a time, stored as ciphertext, decrypted byte-identical in a fresh browser', async () => {
  const files = [
    { name: 'contract.pdf', ...makeFile(dir, 'contract.pdf', 300 * 1024 * 1024 + 7) },
    { name: 'annex.txt', ...makeFile(dir, 'annex.txt', 2000) },
    { name: 'exact.bin', ...makeFile(dir, 'exact.bin', CHUNK) },
  ];
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  const inFlight = watchInFlight(b);
  const bodies: string[] = [];
  b.context.on('request', (r) => bodies.push(`${r.url()} ${r.postData() ?? ''}`.slice(0, 4000)));
  try {
    await fillForm(
      b.page,
      files.map((f) => f.path),
      'Encrypted contract',
    );
    const pw = b.page.locator('input.encrypt-password');
    await pw.fill('short');
    assert.equal(
      await b.page.locator('.password-rules li.unmet').evaluateAll((l) => l.map((x) => x.getAttribute('data-rule'))),
      ['min_length', 'mixed_case', 'numbers', 'special'],
    );
    await b.page.click('button.primary');
    await b.page.locator('.error', { hasText: 'does not meet the rules' }).waitFor();
    await pw.fill(PASSWORD);
    assert.is(await b.page.locator('.password-rules li.unmet').count(), 0);
    await b.page.click('button.primary');
    await watchProgress(b.page, 180_000);
    assert.ok(inFlight.max >= 2 && inFlight.max <= 4, `${inFlight.max} chunks in flight at most`);
    // The password went nowhere: no request carried it, no storage holds it.
    assert.not.ok(
      bodies.some((x) => x.includes(PASSWORD)),
      'a request carried the password',
    );
    const stored = await b.page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    assert.not.ok(stored.includes(PASSWORD));
  } finally {
    await b.close();
  }
  const t = await transferBySubject('Encrypted contract');
  assert.is(t.encryption, true);
  assert.is(t.encryption_password_version, 1);
  assertCiphertextStored(files);
  await decryptInFreshBrowser(t.recipients[0].token, PASSWORD, files);
});

test('generated password: shown once with a copy button (version 2), and it decrypts in a fresh browser', async () => {
  const files = [{ name: 'payroll.csv', ...makeFile(dir, 'payroll.csv', CHUNK + 99) }];
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  let generated = '';
  try {
    await fillForm(
      b.page,
      files.map((f) => f.path),
      'Generated password',
    );
    await b.page.check('input[name=encrypt-mode][value=generated]');
    generated = (await b.page.locator('code.encrypt-generated').textContent()) ?? '';
    assert.match(generated, /^[A-Za-z0-9+/]{43}=$/);
    assert.ok(await b.page.locator('.generated-password button.copy').isVisible());
    await b.page.click('button.primary');
    await watchProgress(b.page, 120_000);
    assert.is(await b.page.locator('code.encrypt-generated').count(), 0, 'not shown again');
    assert.not.ok((await b.page.evaluate(() => JSON.stringify({ ...localStorage }))).includes(generated));
  } finally {
    await b.close();
  }
  const t = await transferBySubject('Generated password');
  assert.equal([t.encryption_password_version, t.encryption_password_encoding], [2, 'base64']);
  await decryptInFreshBrowser(t.recipients[0].token, generated, files);
});

test('a reload mid-upload resumes: the password is asked again (a wrong one refused), only the chunks in flight are sent twice', async () => {
  const big = { name: 'scan.bin', ...makeFile(dir, 'scan.bin', 48 * 1024 * 1024 + 5) };
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  let puts = 0;
  b.context.on('request', (r) => {
    if (r.method() === 'PUT' && /\/file\/\d+\/chunk\/\d+/.test(r.url())) puts++;
  });
  const slow = (page: Page) =>
    page.route(/\/file\/\d+\/chunk\/\d+/, async (route: Route) => {
      await new Promise((r) => setTimeout(r, 150)); // a slower link, so the reload lands mid-upload
      await route.continue().catch(() => undefined);
    });
  try {
    await slow(b.page);
    await fillForm(b.page, [big.path], 'Encrypted resume');
    await b.page.locator('input.encrypt-password').fill(PASSWORD);
    await b.page.click('button.primary');
    await b.page.waitForFunction(
      () => Number(document.querySelector('#progress-total')?.getAttribute('value')) >= 30,
      null,
      { timeout: 60_000 },
    );
    await b.page.reload();
    await slow(b.page);
    const item = b.page.locator('.resume-item');
    await item.waitFor();
    const record = await b.page.evaluate(() => localStorage.getItem('ferry.unfinished-uploads') ?? '');
    assert.match(record, /"keyCheck"/);
    assert.not.ok(record.includes(PASSWORD), 'the resume record keeps no password');
    await item.locator('input.resume-password').fill('Contract-Draft-2027!');
    await item.locator('input[type=file]').setInputFiles([big.path]);
    await item.locator('.error', { hasText: 'not the password' }).waitFor();
    await item.locator('input.resume-password').fill(PASSWORD);
    await item.locator('input[type=file]').setInputFiles([big.path]);
    await watchProgress(b.page, 120_000);
  } finally {
    await b.close();
  }
  const chunks = Math.ceil(big.size / CHUNK);
  assert.ok(puts <= chunks + 4, `${puts} chunk PUTs for ${chunks} chunks: at most the 4 in flight again`);
  const t = await transferBySubject('Encrypted resume');
  assertCiphertextStored([big]);
  await decryptInFreshBrowser(t.recipients[0].token, PASSWORD, [big]);
});

test.run();
