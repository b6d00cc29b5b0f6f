import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { BinaryServer } from '../helpers/binary';
import { asUserHeaders, BrowserSession, HEADER_SP_CONFIG, openBrowser, rest, shot, startFerry } from './harness';

// The admin page's lists are read a page at a time and counted by the server (docs/architecture.md, "Lists and
// pages"): 120 transfers, 55 guests and 62 users show as pages of 50 with "1–50 of 120" and the buttons to the
// pages before and after, and no request of the page asks for a whole list; nor does a sender's own list of her
// 120 transfers. The built binary, Chromium.

const TRANSFERS = 120;
const GUESTS = 55;
/** root and alice, and one user per guest's inviter plus five more. */
const USERS = 2 + GUESTS + 5;

let ferry: BinaryServer;
let b: BrowserSession;
/** Every list request the page sent (path and query). */
const asked: string[] = [];

test.before(async () => {
  ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'] });
  const expires = Math.floor(Date.now() / 1000) + 7 * 86400;
  for (let i = 0; i < TRANSFERS; i++) {
    const r = await rest(ferry.url, 'POST', '/transfer', 'alice', {
      files: [{ name: `f${i}.bin`, size: 10 }],
      recipients: ['bob@example.org'],
      from: 'alice@example.org',
      subject: `paging ${String(i).padStart(3, '0')}`,
      expires,
    });
    assert.is(r.status, 201, r.body.toString());
  }
  for (let i = 0; i < USERS - 2; i++) {
    const id = `u${String(i).padStart(3, '0')}`;
    const r =
      i < GUESTS
        ? await rest(ferry.url, 'POST', '/guest', id, { recipient: `guest${i}@example.org`, expires })
        : await rest(ferry.url, 'GET', '/user', id);
    assert.ok(r.status === 200 || r.status === 201, `${id}: ${r.status} ${r.body.toString()}`);
  }
  assert.is((await rest(ferry.url, 'GET', '/user', 'root')).status, 200);
  b = await openBrowser({ headers: asUserHeaders('root') });
  b.page.on('request', (req) => {
    const u = new URL(req.url());
    if (/@all$/.test(u.pathname)) asked.push(`${u.pathname}${u.search}`);
  });
});

test.after(async () => {
  await b?.close().catch(() => undefined);
  await ferry?.stop();
});

async function tab(page: Page, name: string): Promise<void> {
  await page.goto(`${ferry.url}/?s=admin`);
  await page.click(`nav.tabs button:has-text("${name}")`);
}

async function range(page: Page, text: string): Promise<void> {
  await page.locator('.pager-range', { hasText: text }).waitFor();
}

test('the overview: the counts come from the server', async () => {
  const page = b.page;
  await page.goto(`${ferry.url}/?s=admin`);
  const facts = page.locator('dl.facts.overview');
  await facts.waitFor();
  const shown = await facts.locator('dd').allTextContents();
  // Live transfers, all transfers, guests, users.
  assert.equal(shown, [String(TRANSFERS), String(TRANSFERS), String(GUESTS), String(USERS)]);
});

test('all transfers: pages of 50, newest first, forwards and back; the last page has the rest', async () => {
  const page = b.page;
  // The pages after the first arrive late, as on a busy server: until one arrives, the list must keep saying
  // "1–50" beside the first fifty rows (it once said "51–100" over them).
  await page.route(/\/transfer\/@all\?.*after=/, async (route) => {
    await new Promise((r) => setTimeout(r, 600));
    await route.continue();
  });
  await tab(page, 'All transfers');
  const rows = page.locator('table.transfers > tbody > tr');
  await range(page, `1–50 of ${TRANSFERS}`);
  assert.is(await rows.count(), 50);
  assert.match((await rows.first().textContent()) ?? '', `paging ${TRANSFERS - 1}`);
  assert.ok(await page.locator('.pager-prev').isDisabled(), 'no page before the first');
  await shot(page, 'admin-transfers-paged');
  await page.click('.pager-next');
  assert.match((await page.locator('.pager-range').textContent()) ?? '', `1–50 of ${TRANSFERS}`);
  assert.match((await rows.first().textContent()) ?? '', `paging ${TRANSFERS - 1}`);
  assert.ok(await page.locator('.pager-next').isDisabled(), 'no second click while the page is on its way');
  await range(page, `51–100 of ${TRANSFERS}`);
  assert.is(await rows.count(), 50);
  assert.match((await rows.first().textContent()) ?? '', `paging ${String(TRANSFERS - 51).padStart(3, '0')}`);
  await page.click('.pager-next');
  await range(page, `101–120 of ${TRANSFERS}`);
  assert.is(await rows.count(), TRANSFERS - 100);
  assert.match((await rows.last().textContent()) ?? '', 'paging 000');
  assert.ok(await page.locator('.pager-next').isDisabled(), 'no page after the last');
  await page.click('.pager-prev');
  await range(page, `51–100 of ${TRANSFERS}`);
  assert.match((await rows.first().textContent()) ?? '', `paging ${String(TRANSFERS - 51).padStart(3, '0')}`);
});

test('all guests and users: pages of 50 with the server’s totals', async () => {
  const page = b.page;
  await tab(page, 'All guests');
  await range(page, `1–50 of ${GUESTS}`);
  assert.is(await page.locator('table.guests > tbody > tr').count(), 50);
  await page.click('.pager-next');
  await range(page, `51–55 of ${GUESTS}`);
  assert.is(await page.locator('table.guests > tbody > tr').count(), GUESTS - 50);

  await tab(page, 'Users');
  await range(page, `1–50 of ${USERS}`);
  assert.is(await page.locator('table.users tr[data-user]').count(), 50);
  await page.click('.pager-next');
  await range(page, `51–62 of ${USERS}`);
  assert.is(await page.locator('table.users tr[data-user]').count(), USERS - 50);
  await page.locator('table.users tr[data-user="u059"]').waitFor();
});

test("a sender's own list: pages of 50, newest first, never the whole list", async () => {
  const alice = await openBrowser({ headers: asUserHeaders('alice') });
  const lists: string[] = [];
  alice.page.on('request', (req) => {
    const u = new URL(req.url());
    if (u.pathname === '/transfer') lists.push(u.search);
  });
  try {
    const page = alice.page;
    await page.goto(`${ferry.url}/?s=transfers`);
    const rows = page.locator('table.transfers > tbody > tr');
    await page.locator('.pager-range', { hasText: '1–50' }).waitFor();
    assert.is(await rows.count(), 50);
    assert.match((await rows.first().textContent()) ?? '', `paging ${TRANSFERS - 1}`);
    await page.click('.pager-next');
    await page.locator('.pager-range', { hasText: '51–100' }).waitFor();
    assert.match((await rows.first().textContent()) ?? '', `paging ${String(TRANSFERS - 51).padStart(3, '0')}`);
    await page.click('.pager-next');
    await page.locator('.pager-range', { hasText: `101–${TRANSFERS}` }).waitFor();
    assert.is(await rows.count(), TRANSFERS - 100);
    assert.ok(await page.locator('.pager-next').isDisabled(), 'no page after the last');
    assert.ok(lists.length >= 3, lists.join(' '));
    for (const q of lists) assert.match(q, /[?&]limit=51(&|$)/, q);
    assert.equal(alice.errors, [], 'no error in the console');
  } finally {
    await alice.close();
  }
});

test('no request of the page asks for a whole list', async () => {
  assert.ok(asked.length >= 8, asked.join(' '));
  for (const q of asked) assert.match(q, /[?&]limit=51(&|$)/, q);
  assert.equal(b.errors, [], 'no error in the console');
});

test.run();
