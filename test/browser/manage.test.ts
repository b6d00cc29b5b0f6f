import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BinaryServer } from '../helpers/binary';
import { openBrowser, startFerry, shot, rest, HEADER_SP_CONFIG, asUserHeaders, BrowserSession } from './harness';
import { sendViaRest as sendViaRestTo } from './fixtures';

// Managing what was sent: my transfers (details, recipients, expiry, files, close), guests, profile, admin.

let ferry: BinaryServer;
let b: BrowserSession;
const dialogs: string[] = [];
test.before(async () => {
  ferry = await startFerry({ ...HEADER_SP_CONFIG, admin: ['root'] });
  b = await openBrowser({ headers: asUserHeaders('alice') });
  b.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.accept(); // the confirmations of delete, close, extend
  });
  await b.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ferry.url });
});
test.after(async () => {
  await b?.close();
  await ferry?.stop();
});

const sendViaRest = (user: string, subject: string, files: Record<string, string>, recipients: string[]) =>
  sendViaRestTo(ferry.url, user, subject, files, recipients);

test('my transfers: list and details; add, remind and remove a recipient; extend; delete a file; close', async () => {
  const t = await sendViaRest(
    'alice',
    'Quarterly report',
    { 'report.pdf': 'pdf'.repeat(1000), 'annex.csv': 'a,b\n1,2\n' },
    ['eve@example.org', 'fred@example.org'],
  );
  const { page } = b;
  await page.goto(`${ferry.url}/?s=transfers`);
  const row = page.locator('table.transfers tbody tr', { hasText: 'Quarterly report' }).first();
  await row.waitFor();
  assert.match((await row.textContent()) ?? '', 'eve@example.org');
  await row.locator('button', { hasText: 'Details' }).click();
  const details = page.locator(`#details-${t.id}`);
  await details.locator('.file-list li', { hasText: 'annex.csv' }).waitFor();
  await details.locator('table.audit').waitFor();
  await shot(page, 'transfer-details');

  await details.locator('#add-recipient-' + t.id).fill('gina@example.org');
  await details.locator('form.add-recipient button').click();
  await details.locator('.recipient-list li', { hasText: 'gina@example.org' }).waitFor();

  await details
    .locator('.recipient-list li', { hasText: 'eve@example.org' })
    .locator('button', { hasText: 'Remind' })
    .click();
  await details.locator('.recipient-list li', { hasText: 'eve@example.org' }).locator('.ok').waitFor();

  await details
    .locator('.recipient-list li', { hasText: 'fred@example.org' })
    .locator('button', { hasText: 'Remove' })
    .click();
  await details.locator('.recipient-list li', { hasText: 'fred@example.org' }).waitFor({ state: 'detached' });

  // Extend expiry: asked first, with the new date and what is left; twice (the default allows two), then no more.
  const before = (await rest(ferry.url, 'GET', `/transfer/${t.id}`, 'alice')).json.expires.raw;
  assert.is((await details.locator('.extensions-left').innerText()).trim(), '2 extensions left');
  await details.locator('button', { hasText: 'Extend expiry' }).click();
  await details.locator('.extensions-left', { hasText: '1 extension left' }).waitFor();
  assert.match(
    dialogs[dialogs.length - 1],
    /^Extend the expiry by 7 days, to \d{1,2} [A-Z][a-z]{2} \d{4}\? After this, 1 more extension is possible\.$/,
  );
  assert.match(
    await details.locator('.action .ok', { hasText: 'Now available' }).innerText(),
    /^Now available until \d{1,2} [A-Z][a-z]{2} \d{4}\.$/,
  );
  await details.locator('button', { hasText: 'Extend expiry' }).click();
  await details.locator('.extensions-left', { hasText: 'The expiry cannot be extended any more.' }).waitFor();
  assert.match(dialogs[dialogs.length - 1], /This is the last extension possible\.$/);
  assert.is(await details.locator('button', { hasText: 'Extend expiry' }).count(), 0);
  const after = (await rest(ferry.url, 'GET', `/transfer/${t.id}`, 'alice')).json;
  assert.is(after.expires.raw, before + 14 * 86400, 'two extensions of 7 days');
  assert.is(after.expiry_date_extension, 0);
  await shot(page, 'transfer-details-extended');

  await details.locator('.file-list li', { hasText: 'annex.csv' }).locator('button', { hasText: 'Delete' }).click();
  await details.locator('.file-list li', { hasText: 'annex.csv' }).waitFor({ state: 'detached' });

  await details.locator('button', { hasText: 'Close transfer' }).click();
  await details.locator('button', { hasText: 'Close transfer' }).waitFor({ state: 'detached' });
  const closed = await rest(ferry.url, 'GET', `/transfer/${t.id}`, 'alice');
  assert.equal(
    closed.json.files.map((f: any) => f.name),
    ['report.pdf'],
  );
  assert.equal(closed.json.recipients.map((r: any) => r.email).sort(), ['eve@example.org', 'gina@example.org']);
});

test('guests page: remind and delete an invitation', async () => {
  const made = await rest(ferry.url, 'POST', '/guest', 'alice', {
    recipient: 'hal@example.org',
    from: 'alice@example.org',
    expires: Math.floor(Date.now() / 1000) + 5 * 86400,
    options: [],
  });
  assert.is(made.status, 201);
  const { page } = b;
  await page.goto(`${ferry.url}/?s=guests`);
  const row = page.locator('table.guests tr', { hasText: 'hal@example.org' });
  await row.waitFor();
  await row.locator('button', { hasText: 'Remind' }).click();
  await row.locator('.ok').waitFor();
  await row.locator('button', { hasText: 'Delete' }).click();
  await row.waitFor({ state: 'detached' });
  const list = await rest(ferry.url, 'GET', '/guest', 'alice');
  assert.not.ok(
    (list.json as any[]).some((g) => g.email === 'hal@example.org' && !g.closed),
    'deleted',
  );
});

test('profile: the API access string, its copy button, and a new secret', async () => {
  const { page } = b;
  await page.goto(`${ferry.url}/?s=profile`);
  const field = page.locator('#remote-config');
  await field.waitFor();
  const first = await field.inputValue();
  assert.match(first, new RegExp(`^${ferry.url}/?\\|alice\\|[0-9a-f]{20,}`));
  await page.locator('button.copy').click();
  assert.is(await page.evaluate(() => navigator.clipboard.readText()), first);
  await page.locator('button', { hasText: 'Make a new secret' }).click();
  await page.waitForFunction(
    (old) => (document.querySelector('#remote-config') as HTMLInputElement | null)?.value !== old,
    first,
  );
  assert.is.not(await field.inputValue(), first);
  await shot(page, 'profile');
});

test('admin: all transfers and guests of every user, storage used', async () => {
  await sendViaRest('bob', 'From Bob', { 'b.txt': 'x'.repeat(2048) }, ['ian@example.org']);
  // The admin lists open invitations (hal@ was withdrawn above).
  await rest(ferry.url, 'POST', '/guest', 'bob', {
    recipient: 'ivy@example.org',
    from: 'bob@example.org',
    expires: Math.floor(Date.now() / 1000) + 5 * 86400,
    options: [],
  });
  const admin = await openBrowser({ headers: asUserHeaders('root') });
  try {
    await admin.page.goto(`${ferry.url}/?s=admin`);
    await admin.page.locator('.storage-used').waitFor();
    assert.match((await admin.page.locator('.storage-used').textContent()) ?? '', /\d/);
    await shot(admin.page, 'admin-overview');
    await admin.page.click('nav.tabs button:has-text("All transfers")');
    await admin.page.locator('table.transfers td', { hasText: 'From Bob' }).waitFor();
    await admin.page.click('nav.tabs button:has-text("All guests")');
    await admin.page.locator('table.guests td', { hasText: 'ivy@example.org' }).waitFor();
    await admin.page.click('nav.tabs button:has-text("Users")');
    await admin.page.locator('table.users tr[data-user="bob"]').waitFor();
    await shot(admin.page, 'admin-users');
  } finally {
    await admin.close();
  }
});

test.run();
