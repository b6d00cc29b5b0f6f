import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { openBrowser, startFerry, HEADER_SP_CONFIG, asUserHeaders, BrowserSession } from './harness';
import { sendViaRest } from './fixtures';

// What the pages say, in English and German: one unambiguous date format per language, plural forms from the
// language's rules (no "file(s)"), one way of writing units, and the audit log as sentences, not event ids.

let ferry: BinaryServer;
let b: BrowserSession;
let t: any;
test.before(async () => {
  ferry = await startFerry({ ...HEADER_SP_CONFIG });
  b = await openBrowser({ headers: asUserHeaders('alice') });
  t = await sendViaRest(
    ferry.url,
    'alice',
    'Figures',
    { 'notes.txt': 'n'.repeat(1500), 'table.csv': 'a,b\n', 'photo.jpg': 'p'.repeat(2_500_000) },
    ['rita@example.org'],
  );
  // The recipient downloads one file, then everything as a ZIP: two downloads (each has a start and an end).
  const token = t.recipients[0].token;
  const notes = t.files.find((f: any) => f.name === 'notes.txt');
  for (const q of [`files_ids=${notes.id}`, 'archive_format=zip']) {
    const r = await fetch(`${ferry.url}/download?token=${token}&${q}`);
    assert.is(r.status, 200);
    await r.arrayBuffer();
  }
});
test.after(async () => {
  await b?.close();
  await ferry?.stop();
});

const EN_DAY = /^\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}$/;
const DE_DAY = /^\d{1,2}\. (Jan\.|Feb\.|März|Apr\.|Mai|Juni|Juli|Aug\.|Sept\.|Okt\.|Nov\.|Dez\.) \d{4}$/;

async function openDetails(page: Page, lang: string) {
  await page.goto(`${ferry.url}/?s=transfers&lang=${lang}`);
  await page.locator('table.transfers tbody tr').first().locator('td.row-actions button').click();
  await page.locator(`#details-${t.id} table.audit tbody tr`).first().waitFor();
  // The log is read once the downloads' end events are in it.
  for (let i = 0; i < 50 && (await page.locator(`#details-${t.id} table.audit tbody tr`).count()) < 12; i++)
    await page.waitForTimeout(100);
}

async function texts(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));
}

/** What no page may show: "(s)"-style plurals, KB, ambiguous numeric dates, and raw event ids. */
async function assertNoJargon(page: Page) {
  const body = (await page.locator('main').innerText()).replace(/\u00a0/g, ' ');
  assert.not.match(body, /\((s|en|e)\)/, 'no "(s)" plurals');
  assert.not.match(body, /\bKB\b/, 'kB, never KB');
  assert.not.match(body, /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/, 'no numeric dates');
  assert.not.match(body, /\b(transfer|upload|file|recipient|download|archive)_[a-z_]+\b/, 'no event ids');
  assert.not.match(body, /\bTransfer \d+\b/, 'no internal ids');
}

test('English: "5 Dec 2026" dates, "3 files", "2 downloads", the audit log in sentences', async () => {
  const { page } = b;
  await openDetails(page, 'en');
  const details = page.locator(`#details-${t.id}`);
  for (const d of await texts(
    page,
    'table.transfers td[data-label="Created"], table.transfers td[data-label="Expires"]',
  ))
    assert.match(d, EN_DAY);
  for (const d of await texts(page, 'table.audit td.when'))
    assert.match(d, /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/);
  assert.match((await details.innerText()).replace(/\u00a0/g, ' '), '2 downloads');
  const log = await texts(page, 'table.audit td[data-label="Event"]');
  assert.ok(log.includes('rita@example.org downloaded notes.txt.'), log.join('\n'));
  assert.ok(log.includes('rita@example.org downloaded every file as one archive.'), log.join('\n'));
  assert.ok(log.includes('alice@example.org uploaded photo.jpg.'), log.join('\n'));
  assert.ok(log.includes('Every file arrived: the transfer became available.'), log.join('\n'));
  // Sizes: one unit style, the figure kept with its unit.
  const sizes = await texts(page, `#details-${t.id} .file-list .size`);
  assert.equal(sizes.sort(), ['1.5\u00a0kB', '2.5\u00a0MB', '4\u00a0B'].sort());
  await assertNoJargon(page);

  await page.goto(`${ferry.url}/?lang=en`);
  await page.setInputFiles('#pick-files', [{ name: 'one.txt', mimeType: 'text/plain', buffer: Buffer.from('1') }]);
  assert.match((await page.locator('.dropzone .total').innerText()).replace(/\u00a0/g, ' '), /^1 file, 1 B in total$/);
  await page.setInputFiles('#pick-files', [
    { name: 'two.txt', mimeType: 'text/plain', buffer: Buffer.from('22') },
    { name: 'three.txt', mimeType: 'text/plain', buffer: Buffer.from('333') },
  ]);
  assert.match((await page.locator('.dropzone .total').innerText()).replace(/\u00a0/g, ' '), /^3 files, 6 B in total$/);
  assert.match(
    await page.locator('#upload-expires-hint').innerText(),
    /^Until \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} \S+ \(at most \d+ days from today\)\.$/,
  );
});

test('German: "5. Dez. 2026" dates, "3 Dateien", "2 Downloads", decimal commas, the audit log in German sentences', async () => {
  const { page } = b;
  await openDetails(page, 'de');
  for (const d of await texts(
    page,
    'table.transfers td[data-label="Erstellt"], table.transfers td[data-label="Läuft ab"]',
  ))
    assert.match(d, DE_DAY);
  const details = page.locator(`#details-${t.id}`);
  assert.match((await details.innerText()).replace(/\u00a0/g, ' '), '2 Downloads');
  const log = await texts(page, 'table.audit td.when + td');
  assert.ok(log.includes('rita@example.org hat notes.txt heruntergeladen.'), log.join('\n'));
  assert.ok(log.includes('rita@example.org hat alle Dateien als ein Archiv heruntergeladen.'), log.join('\n'));
  const sizes = await texts(page, `#details-${t.id} .file-list .size`);
  assert.ok(sizes.includes('1,5\u00a0kB') && sizes.includes('2,5\u00a0MB'), sizes.join(' '));
  await assertNoJargon(page);
  assert.match(await page.locator('table.transfers td[data-label="Betreff"]').innerText(), 'Figures');

  await page.goto(`${ferry.url}/?lang=de`);
  await page.setInputFiles('#pick-files', [
    { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('1') },
    { name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from('2') },
    { name: 'c.txt', mimeType: 'text/plain', buffer: Buffer.from('3') },
  ]);
  assert.match(
    (await page.locator('.dropzone .total').innerText()).replace(/\u00a0/g, ' '),
    /^3 Dateien, insgesamt 3 B$/,
  );
  assert.match(await page.locator('#upload-expires-hint').innerText(), /^Bis \d{1,2}\. \S+ \d{4}, \d{2}:\d{2} \S+ \(/);

  // The download page (rendered by the server) writes the same way.
  const anon = await openBrowser();
  try {
    await anon.page.goto(`${t.recipients[0].download_url}&lang=de`);
    await anon.page.locator('form.download-form').waitFor();
    const facts = (await anon.page.locator('dl.facts').innerText()).replace(/\u00a0/g, ' ');
    assert.match(facts, /2,5 MB \(3 Dateien\)/);
    // The expiry is a moment: the German day, then the time and the reader's zone.
    assert.match(
      await anon.page.locator('dl.facts time').innerText(),
      new RegExp(DE_DAY.source.replace(/\$$/, ', \\d{2}:\\d{2} \\S+$')),
    );
    await assertNoJargon(anon.page);
  } finally {
    await anon.close();
  }
});

test.run();
