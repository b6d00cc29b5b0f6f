import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { typedPasswordKey } from '../helpers/encryption/typed-password-key';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { savedSha256 } from './fixtures';
import { openBrowser, startFerry, makeFile, rest, sha256, HEADER_SP_CONFIG, BrowserSession } from './harness';
import {
  aeadText,
  encryptChunk,
  encryptedSize,
  fileCrypto,
  generateClientEntropy,
  generateFileIv,
} from '../../src/shared-crypto/format';

// The download page of an end-to-end encrypted transfer in Chromium, against the server: a transfer encrypted
// the way FileSender's clients do it (here by the format code in Node) is decrypted in a fresh browser with
// the password, straight to disk through the File System Access API or, where a browser lacks it, through
// the page's service worker; a wrong password is refused on the first chunk; the renderer's JS heap stays
// far below the file's size while it decrypts.

const CHUNK = 5 * 1024 * 1024;
const PASSWORD = 'Patient-Data-2026!';
const BIG = 300 * 1024 * 1024;
let ferry: BinaryServer;
let dir: string;
let files: { name: string; path: string; size: number; sha256: string }[];
let token: string;

test.before(async () => {
  dir = tempDir('ferry-browser-e2ee-');
  ferry = await startFerry({
    ...HEADER_SP_CONFIG,
    upload_chunk_size: CHUNK,
    encryption_password_hash_iterations: 10000,
    mail: { transport: null },
  });
  files = [
    { name: 'scan.bin', ...makeFile(dir, 'scan.bin', BIG) },
    { name: 'chunk-and-one.bin', ...makeFile(dir, 'chunk-and-one.bin', CHUNK + 1) },
    { name: 'notes.txt', ...makeFile(dir, 'notes.txt', 1234) },
  ];
  token = await sendEncrypted();
});
test.after(async () => {
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Creates, encrypts chunk by chunk (read from disk, never whole), uploads and completes the transfer. */
async function sendEncrypted(): Promise<string> {
  const ivs = files.map(() => generateFileIv());
  const aeads = files.map((f, i) => Buffer.from(aeadText(f.size, CHUNK, ivs[i]), 'ascii').toString('base64'));
  const created = await rest(ferry.url, 'POST', '/transfer', 'alice', {
    from: 'alice@example.org',
    recipients: ['bob@example.org'],
    subject: 'Encrypted scans',
    expires: Math.floor(Date.now() / 1000) + 5 * 86400,
    files: files.map((f, i) => ({ name: f.name, size: f.size, iv: ivs[i], aead: aeads[i] })),
    encryption: true,
    encryption_key_version: 3,
    encryption_password_version: 1,
    encryption_password_encoding: 'none',
    encryption_password_hash_iterations: 10000,
    encryption_client_entropy: generateClientEntropy(),
  });
  assert.is(created.status, 201, JSON.stringify(created.json));
  const t = created.json;
  const key = await typedPasswordKey(PASSWORD, t.salt, 10000);
  for (const [i, f] of (t.files as any[]).entries()) {
    const fc = fileCrypto(ivs[i], aeads[i], CHUNK);
    const fd = fs.openSync(files[i].path, 'r');
    const buf = Buffer.alloc(CHUNK);
    for (let offset = 0, index = 0; offset < f.size; offset += CHUNK, index++) {
      const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, f.size - offset), offset);
      const body = await encryptChunk(key, fc, index, buf.subarray(0, n));
      const res = await fetch(`${ferry.url}/file/${f.id}/chunk/${offset}?key=${f.uid}`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/octet-stream' },
        body,
      });
      assert.is(res.status, 200, `chunk ${index} of ${f.name}`);
    }
    fs.closeSync(fd);
    assert.is((await rest(ferry.url, 'PUT', `/file/${f.id}?key=${f.uid}`, 'alice', { complete: true })).status, 200);
  }
  const done = await rest(ferry.url, 'PUT', `/transfer/${t.id}`, 'alice', { complete: true });
  assert.is(done.status, 200);
  return done.json.recipients[0].token;
}

/** Every file under the server's data folder, by size. */
function storedFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else out.push(path.join(d, e.name));
    }
  };
  walk(path.join(ferry.dir, 'data', 'files'));
  return out;
}

async function openDownloadPage(b: BrowserSession): Promise<void> {
  await b.page.goto(`${ferry.url}/?s=download&token=${token}`);
  await b.page.locator('form.e2ee-unlock').waitFor({ state: 'visible' });
}

async function unlock(b: BrowserSession, password: string): Promise<string> {
  await b.page.fill('#e2ee-password', password);
  await b.page.click('form.e2ee-unlock button[type=submit]');
  await b.page.waitForFunction(() => !/…$/.test(document.querySelector('.e2ee-status')?.textContent ?? '…'), null, {
    timeout: 30_000,
  });
  return (await b.page.locator('.e2ee-status').textContent()) ?? '';
}

test('the server holds only ciphertext: each stored file is the encrypted size and none is the plaintext', () => {
  const stored = storedFiles();
  for (const f of files) {
    const same = stored.filter((p) => fs.statSync(p).size === encryptedSize(f.size, CHUNK));
    assert.is(same.length, 1, f.name);
    assert.is.not(sha256(same[0]), f.sha256);
    // Not even the first bytes: a chunk starts with its IV, then ciphertext.
    const head = Buffer.alloc(64);
    const fd = fs.openSync(same[0], 'r');
    fs.readSync(fd, head, 0, 64, 16);
    fs.closeSync(fd);
    assert.not.ok(fs.readFileSync(f.path).subarray(0, 48).equals(head.subarray(0, 48)));
  }
});

test('a wrong password is refused on the first chunk, clearly; nothing is offered for saving', async () => {
  const b = await openBrowser();
  try {
    await openDownloadPage(b);
    assert.is(await b.page.locator('button.e2ee-save:visible').count(), 0);
    const said = await unlock(b, 'Patient-Data-2027!');
    assert.match(said, /Wrong password/);
    assert.is(await b.page.locator('button.e2ee-save:visible').count(), 0);
    assert.ok(await b.page.locator('form.e2ee-unlock').isVisible(), 'the form stays for another try');
    // The password went nowhere: the form has no field name and no request carried it.
    assert.is(await b.page.locator('#e2ee-password').getAttribute('name'), null);
    assert.equal(b.errors, []);
  } finally {
    await b.close();
  }
});

test('File System Access API: a fresh browser decrypts all three files to disk, byte-identical; the JS heap stays bounded', async () => {
  const b = await openBrowser();
  try {
    // The save dialog cannot be clicked in a test: the picker gives a file of the origin's private file
    // system instead, which Chromium writes through the same FileSystemWritableFileStream.
    await b.context.addInitScript(() => {
      (window as any).showSaveFilePicker = async ({ suggestedName }: { suggestedName: string }) =>
        (await navigator.storage.getDirectory()).getFileHandle(suggestedName, { create: true });
    });
    await openDownloadPage(b);
    assert.match(await unlock(b, PASSWORD), /Password correct/);
    const cdp = await b.context.newCDPSession(b.page);
    let peak = 0;
    for (const f of files) {
      const row = b.page.locator(`tr.e2ee-file[data-save-name="${f.name}"]`);
      await row.locator('button.e2ee-save').click();
      for (let i = 0; i < 1200 && (await row.getAttribute('data-saved')) !== 'true'; i++) {
        // What the page keeps alive (after a collection), array buffers included: not what it has let go.
        await cdp.send('HeapProfiler.collectGarbage');
        const h = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize?: number };
        if (f === files[0]) peak = Math.max(peak, h.usedSize + (h.backingStorageSize ?? 0));
        assert.not.match((await row.locator('.e2ee-file-status').textContent()) ?? '', /failed/i);
        await b.page.waitForTimeout(100);
      }
      assert.is(await row.getAttribute('data-saved'), 'true', `${f.name} was saved`);
      assert.is(await savedSha256(b, f.name), f.sha256, f.name);
    }
    // Two encrypted chunks and a plaintext one in flight, plus the page: far below the 300 MiB file.
    assert.ok(peak > 0 && peak < 40 * 1024 * 1024, `JS heap peaked at ${(peak / 1048576).toFixed(1)} MiB`);
    assert.equal(b.errors, []);
  } finally {
    await b.close();
  }
});

test('without the File System Access API, the service worker streams the decrypted download; byte-identical', async () => {
  const b = await openBrowser();
  try {
    await b.context.addInitScript(() => {
      Object.defineProperty(window, 'showSaveFilePicker', { value: undefined, configurable: true });
    });
    await openDownloadPage(b);
    assert.match(await unlock(b, PASSWORD), /Password correct/);
    for (const f of [files[1], files[2], files[0]]) {
      const row = b.page.locator(`tr.e2ee-file[data-save-name="${f.name}"]`);
      const [download] = await Promise.all([
        b.page.waitForEvent('download', { timeout: 120_000 }),
        row.locator('button.e2ee-save').click(),
      ]);
      assert.is(download.suggestedFilename(), f.name);
      const saved = await download.path().catch(async (e) => {
        throw new Error(
          `${e.message}; failure: ${await download.failure()}; row: ${await row.locator('.e2ee-file-status').textContent()}; errors: ${b.errors.join(' | ')}`,
        );
      });
      assert.ok(saved, 'the download finished');
      assert.is(sha256(saved!), f.sha256, f.name);
      await row.locator('.e2ee-file-status', { hasText: 'Saved' }).waitFor({ timeout: 60_000 });
    }
    assert.equal(b.errors, []);
  } finally {
    await b.close();
  }
});

test.run();
