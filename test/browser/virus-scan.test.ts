import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/temp-dir';
import {
  openBrowser,
  startFerry,
  shot,
  rest,
  makeFile,
  HEADER_SP_CONFIG,
  asUserHeaders,
  BrowserSession,
  fillUploadForm,
} from './harness';
import { Clamd, EICAR, startClamd } from '../helpers/system/clamd';
import { until } from '../helpers/until';

// Virus scanning in the browser (docs/sharing.md, Virus scanning), with the executable and a real clamd: a file
// uploaded from the upload page is checked; the owner's details say what was found (the signature) and the
// transfer is blocked; the recipient's page says so; a clean transfer's page says it was checked.

let clamd: Clamd;
let ferry: BinaryServer;
let b: BrowserSession;
let dir: string;
test.before(async () => {
  dir = tempDir('ferry-browser-virus-');
  clamd = await startClamd();
  ferry = await startFerry({ ...HEADER_SP_CONFIG, antivirus: { clamd: clamd.url } });
  b = await openBrowser({ headers: asUserHeaders('alice') });
});
test.after(async () => {
  await b?.close();
  await ferry?.stop();
  await clamd?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function send(file: string, subject: string) {
  const { page } = b;
  await fillUploadForm(page, ferry.url, [file], 'rita@example.org', subject);
  await page.click('button.primary');
  await page.locator('#summary-title').waitFor({ timeout: 60_000 });
  const list = (await rest(ferry.url, 'GET', '/transfer', 'alice')).json as any[];
  return list.find((x) => x.subject === subject);
}

async function settled(id: number, status: string) {
  await until(
    `scan ${status}`,
    async () => (await rest(ferry.url, 'GET', `/transfer/${id}`, 'alice')).json.virus_scan?.status === status,
    30_000,
  );
}

test('an infected upload is blocked: the owner sees the signature, the recipient a clear refusal', async () => {
  const eicar = path.join(dir, 'eicar.com');
  fs.writeFileSync(eicar, EICAR);
  const t = await send(eicar, 'Infected');
  await settled(t.id, 'infected');
  const { page } = b;
  await page.goto(`${ferry.url}/?s=transfers`);
  const row = page.locator('table.transfers tbody tr', { hasText: 'Infected' }).first();
  assert.match(await row.innerText(), 'Blocked (virus)');
  await row.locator('button', { hasText: 'Details' }).click();
  const note = page.locator(`#details-${t.id} .virus-scan`);
  await note.waitFor();
  assert.match(await note.innerText(), 'Blocked: the virus scanner found an infected file');
  assert.match(await note.innerText(), `eicar.com: ${clamd.eicarName}`);
  await shot(page, 'virus-blocked-owner');
  const recipient = await openBrowser();
  try {
    const r = await recipient.page.goto(`${ferry.url}/?s=download&token=${t.recipients[0].token}`);
    assert.is(r?.status(), 410);
    assert.match(
      await recipient.page.locator('.error-page .error-reason').innerText(),
      'This transfer is blocked: the virus scanner found an infected file in it.',
    );
    await shot(recipient.page, 'virus-blocked-recipient');
  } finally {
    await recipient.close();
  }
});

test('a clean upload is released after its check, and its page says so', async () => {
  const file = makeFile(dir, 'clean.bin', 3_000_000);
  const t = await send(file.path, 'Clean');
  await settled(t.id, 'clean');
  const recipient = await openBrowser();
  try {
    const r = await recipient.page.goto(`${ferry.url}/?s=download&token=${t.recipients[0].token}`);
    assert.is(r?.status(), 200);
    assert.match(await recipient.page.locator('.virus-scan').innerText(), 'Checked for viruses: no virus found.');
  } finally {
    await recipient.close();
  }
});

test.run();
