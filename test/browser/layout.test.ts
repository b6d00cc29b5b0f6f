import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { openBrowser, startFerry, shot, rest, HEADER_SP_CONFIG, asUserHeaders } from './harness';
import { sendViaRest } from './fixtures';
import { zipEntries } from './zip-reader';

// Layout and behaviour a user meets: wide tables that fit, buttons in line, a compact phone header, even
// remove buttons; "Download selected" that never means "everything"; links named after their file; no
// invisible control in the Tab order; an icon at /favicon.ico.

let ferry: BinaryServer;
let dir: string;
test.before(async () => {
  dir = tempDir('ferry-browser-layout-');
  ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'] });
});
test.after(async () => {
  await ferry?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Box = { x: number; y: number; width: number; height: number };
const boxes = (page: Page, selector: string): Promise<Box[]> =>
  page.locator(selector).evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );

test('admin "All transfers" at 1280 px: the table fits its card, every button whole', async () => {
  const long = 'a.very.long.user.name.from.the.finance.department';
  await sendViaRest(
    ferry.url,
    long,
    'Quarterly figures for the board meeting, the auditors and the annual report, final version',
    {
      'Quarterly-figures-2026-final-version-for-the-board-and-the-auditors.xlsx': 'x'.repeat(3000),
      'annex-with-a-long-name-too.pdf': 'y'.repeat(2000),
    },
    [
      'first.recipient.with.a.long.address@example.org',
      'second.recipient.with.a.long.address@example.org',
      'third@example.org',
    ],
  );
  await sendViaRest(ferry.url, 'bob', 'Short', { 'a.txt': 'a' }, ['c@example.org']);
  const b = await openBrowser({ headers: asUserHeaders('root') });
  try {
    await b.page.setViewportSize({ width: 1280, height: 800 });
    await b.page.goto(`${ferry.url}/?s=admin`);
    await b.page.click('nav.tabs button:has-text("All transfers")');
    await b.page.locator('table.transfers td', { hasText: 'Quarterly figures' }).waitFor();
    const fit = await b.page.evaluate(() => {
      const wrap = document.querySelector('.table-wrap')!;
      const card = wrap.closest('.card')!.getBoundingClientRect();
      const buttons = [...wrap.querySelectorAll('button')].map((x) => x.getBoundingClientRect());
      return {
        over: wrap.scrollWidth - wrap.clientWidth,
        cardRight: card.right,
        rightmost: Math.max(...buttons.map((r) => r.right)),
        leftmost: Math.min(...buttons.map((r) => r.left)),
      };
    });
    assert.ok(fit.over <= 0, `the table scrolls sideways by ${fit.over}px`);
    assert.ok(
      fit.rightmost <= fit.cardRight && fit.rightmost <= 1280,
      `a button ends at ${fit.rightmost}px, the card at ${fit.cardRight}px`,
    );
    // With a row's details open, still nothing is cut.
    await b.page
      .locator('table.transfers tr', { hasText: 'Quarterly figures' })
      .locator('td.row-actions button')
      .click();
    await b.page.locator('.details table.audit').waitFor();
    const over = await b.page.evaluate(() =>
      Math.max(...[...document.querySelectorAll('.table-wrap')].map((w) => w.scrollWidth - w.clientWidth)),
    );
    assert.ok(over <= 0, `with details open a table scrolls sideways by ${over}px`);
    await shot(b.page, 'layout-admin-transfers-1280');
  } finally {
    await b.close();
  }
});

test("the guest table's buttons sit in line: the same height in a row, the same column in every row", async () => {
  for (const [email, subject] of [
    ['gus@example.org', 'Scans, please'],
    ['a.guest.with.a.rather.long.address@example.org', ''],
    ['ida@example.org', 'Photos of the site visit on Monday'],
  ]) {
    const r = await rest(ferry.url, 'POST', '/guest', 'alice', {
      recipient: email,
      from: 'alice@example.org',
      subject: subject || undefined,
      expires: Math.floor(Date.now() / 1000) + 5 * 86400,
    });
    assert.is(r.status, 201);
  }
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    for (const width of [1280, 800]) {
      await b.page.setViewportSize({ width, height: 800 });
      await b.page.goto(`${ferry.url}/?s=guests`);
      await b.page.locator('table.guests tbody tr').nth(2).waitFor();
      const rows = await b.page.locator('table.guests tbody tr').count();
      const remind: Box[] = [];
      const del: Box[] = [];
      for (let i = 0; i < rows; i++) {
        const row = b.page.locator('table.guests tbody tr').nth(i);
        const [r] = await boxes(b.page, `table.guests tbody tr:nth-child(${i + 1}) button:has-text("Remind")`);
        const [d] = await boxes(b.page, `table.guests tbody tr:nth-child(${i + 1}) button:has-text("Delete")`);
        const rowBox = (await row.boundingBox())!;
        assert.ok(Math.abs(r.y - d.y) <= 1, `row ${i}: Remind at y=${r.y}, Delete at y=${d.y}`);
        assert.ok(
          Math.abs(r.y + r.height / 2 - (rowBox.y + rowBox.height / 2)) <= 2,
          `row ${i}: the buttons are centred in their row`,
        );
        remind.push(r);
        del.push(d);
      }
      for (const list of [remind, del])
        assert.ok(
          Math.max(...list.map((x) => x.x)) - Math.min(...list.map((x) => x.x)) <= 1,
          `one column at ${width}px: ${list.map((x) => x.x).join(', ')}`,
        );
      await shot(b.page, `layout-guests-${width}`);
    }
  } finally {
    await b.close();
  }
});

test('phone (390×844): the header takes at most 100 px on every page; the remove buttons of the file list are even', async () => {
  const b = await openBrowser({ headers: asUserHeaders('root') });
  try {
    await b.page.setViewportSize({ width: 390, height: 844 });
    for (const q of ['', '?s=transfers', '?s=guests', '?s=admin', '?s=profile']) {
      await b.page.goto(`${ferry.url}/${q}`);
      await b.page.locator('main h1').first().waitFor();
      const h = (await b.page.locator('header.top').boundingBox())!.height;
      assert.ok(h <= 100, `${q || 'upload'}: the header is ${h}px high`);
      const current = (await b.page.locator('header.top nav a[aria-current="page"]').boundingBox())!;
      assert.ok(
        current.x >= 0 && current.x + current.width <= 390,
        `${q || 'upload'}: the current page's menu entry is in view`,
      );
      // Every entry whole and on screen, none cut ("Administratio") nor scrolled away (Profile).
      const entries = await b.page.locator('header.top nav a').evaluateAll((links) =>
        links.map((a) => {
          const r = a.getBoundingClientRect();
          const nav = a.closest('nav')!.getBoundingClientRect();
          return {
            text: a.textContent ?? '',
            left: r.left,
            right: r.right,
            clipped: r.right > nav.right + 0.5 || r.left < nav.left - 0.5,
            whole: a.scrollWidth <= a.clientWidth + 1,
          };
        }),
      );
      assert.equal(
        entries.map((e) => e.text),
        ['Send files', 'My transfers', 'Guests', 'Administration', 'Profile'],
      );
      for (const e of entries)
        assert.ok(
          e.left >= 0 && e.right <= 390 && !e.clipped && e.whole,
          `${q || 'upload'}: "${e.text}" spans ${e.left}–${e.right} px`,
        );
    }
    await shot(b.page, 'layout-phone-menu');
    await b.page.goto(`${ferry.url}/`);
    await b.page.setInputFiles('#pick-files', [
      { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('a') },
      {
        name: 'Quarterly-figures-2026-final-version-for-the-board-and-the-auditors.xlsx',
        mimeType: 'text/plain',
        buffer: Buffer.alloc(1_234_567),
      },
      { name: 'photo of the site visit.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(56_789) },
      { name: 'b.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(999_999) },
    ]);
    const buttons = await boxes(b.page, '.file-list li button');
    assert.is(buttons.length, 4);
    const xs = buttons.map((x) => Math.round(x.x));
    const ws = buttons.map((x) => Math.round(x.width));
    assert.ok(Math.max(...xs) - Math.min(...xs) <= 1, `remove buttons in one column: ${xs.join(', ')}`);
    assert.ok(Math.max(...ws) - Math.min(...ws) <= 1, `remove buttons of one width: ${ws.join(', ')}`);
    const items = await boxes(b.page, '.file-list li');
    buttons.forEach((btn, i) =>
      assert.ok(
        btn.y >= items[i].y && btn.y + btn.height <= items[i].y + items[i].height,
        `button ${i} inside its row`,
      ),
    );
    await shot(b.page, 'layout-phone-file-list');
  } finally {
    await b.close();
  }
});

test('download page: "Download selected" is disabled until a file is ticked and then gets only that file; each link is named after its file', async () => {
  const t = await sendViaRest(
    ferry.url,
    'alice',
    'Two files',
    { 'plan.pdf': 'p'.repeat(3000), 'annex.csv': 'a,b\n1,2\n' },
    ['rita@example.org'],
  );
  const b = await openBrowser();
  try {
    await b.page.goto(t.recipients[0].download_url);
    const selected = b.page.locator('button.download-selected');
    await selected.waitFor();
    assert.ok(await selected.isDisabled(), 'disabled with nothing ticked');
    assert.ok(await b.page.locator('#select-hint').isVisible());
    for (const name of ['plan.pdf', 'annex.csv'])
      assert.is(
        await b.page.getByRole('link', { name: `Download ${name}`, exact: true }).count(),
        1,
        `a link named "Download ${name}"`,
      );
    await b.page.check('input[aria-label="annex.csv"]');
    assert.ok(await selected.isEnabled(), 'enabled once a file is ticked');
    assert.not.ok(await b.page.locator('#select-hint').isVisible());
    const [download] = await Promise.all([b.page.waitForEvent('download'), selected.click()]);
    const zip = path.join(dir, 'selected.zip');
    await download.saveAs(zip);
    assert.equal(
      (await zipEntries(zip)).map((e) => e.name.split('/').pop()),
      ['annex.csv'],
      'only the ticked file',
    );
    await b.page.uncheck('input[aria-label="annex.csv"]');
    assert.ok(await selected.isDisabled(), 'disabled again');
    await shot(b.page, 'layout-download-selection');
  } finally {
    await b.close();
  }
});

test('Tab never lands on an invisible control; the language switch still works with the keyboard', async () => {
  const b = await openBrowser({ headers: asUserHeaders('alice') });
  try {
    for (const q of ['', '?s=guests']) {
      await b.page.goto(`${ferry.url}/${q}`);
      await b.page.locator('main h1').first().waitFor();
      await b.page.focus('body');
      const tiny: string[] = [];
      for (let i = 0; i < 40; i++) {
        await b.page.keyboard.press('Tab');
        const f = await b.page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          if (!el || el === document.body) return null;
          const r = el.getBoundingClientRect();
          return { what: el.outerHTML.slice(0, 80), w: r.width, h: r.height };
        });
        if (f && (f.w < 8 || f.h < 8)) tiny.push(`${f.what} (${f.w}×${f.h})`);
      }
      assert.equal(tiny, [], `${q || 'upload'}: focus reached controls too small to see`);
    }
    assert.is(await b.page.locator('form.lang button').isVisible(), false, 'the change button is hidden, not shrunk');
    await b.page.focus('#lang-select');
    await b.page.selectOption('#lang-select', 'fr');
    await b.page.waitForURL(/lang=fr/);
    assert.is(await b.page.getAttribute('html', 'lang'), 'fr');
  } finally {
    await b.close();
  }
});

test('/favicon.ico answers with the icon from the binary, and the pages link it', async () => {
  const r = await fetch(`${ferry.url}/favicon.ico`);
  assert.is(r.status, 200);
  assert.is(r.headers.get('content-type'), 'image/x-icon');
  const body = Buffer.from(await r.arrayBuffer());
  assert.equal([...body.subarray(0, 4)], [0, 0, 1, 0], 'an ICO file');
  assert.is(body.readUInt8(6), 32, '32 px wide');
  const page = await (await fetch(`${ferry.url}/`, { headers: asUserHeaders('alice') })).text();
  const href = /<link rel="icon" href="([^"]+)">/.exec(page)?.[1];
  assert.ok(href?.startsWith('/assets/favicon.ico?v='), `linked as ${href}`);
  assert.is((await fetch(`${ferry.url}${href}`)).status, 200);
  // The browser finds it too (Chromium asks for /favicon.ico on its own).
  const b = await openBrowser();
  try {
    await b.page.goto(`${ferry.url}/favicon.ico`);
    const size = await b.page.evaluate(() => {
      const img = document.querySelector('img');
      return img ? [img.naturalWidth, img.naturalHeight] : null;
    });
    assert.equal(size, [32, 32], 'Chromium decodes it');
  } finally {
    await b.close();
  }
});

test.run();
