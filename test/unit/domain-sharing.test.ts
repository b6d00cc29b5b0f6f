import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { domainOnFakes, userActor } from '../fakes/domain';
import { download, refused, sentTransfer } from '../helpers/domain-factories';

// After an upload, on the in-memory ports of test/fakes/: recipients added and removed
// (src/domain/recipients.ts), the owner's view of downloads (src/domain/sharing.ts) and the automatic reminders
// (src/domain/automatic-reminders.ts), each sent once.

const alice = userActor('alice');
const DAY = 86400;

test('recipients: one added to an available Transfer is mailed its link at once; one removed is told; limits hold', async () => {
  const d = domainOnFakes({ maxRecipients: 2 });
  const { id } = await sentTransfer(d, alice);
  const t = await d.transfers.get(id);
  d.mails.length = 0;
  const q = await d.recipients.add(alice, t, 'q@example.org');
  assert.equal(d.mails, ['transferAvailable:q@example.org']);
  await refused(d.recipients.add(alice, t, 'p@example.org'), 'transfer_too_many_recipients');
  await d.recipients.remove(alice, q);
  assert.ok(
    d.mails.some((m) => m.startsWith('recipientRemoved:')),
    d.mails.join(),
  );
  assert.equal(
    (await d.world.repos.transfers.recipients(id)).map((r) => r.email),
    ['r@example.org'],
  );
  await d.transfers.close(alice, await d.transfers.get(id), 'closed by owner');
  const [r] = await d.world.repos.transfers.recipients(id);
  await refused(d.recipients.remove(alice, r), 'cannot_alter_closed_transfer');
});

test("sharing: the owner's view counts whole downloads per link and file, the same one at a time or for a page", async () => {
  const d = domainOnFakes();
  const { id, recipients } = await sentTransfer(d, alice, { recipients: ['r@example.org', 'q@example.org'] });
  for (const [token, times] of [
    [recipients[0].token, 2],
    [recipients[1].token, 1],
  ] as const) {
    for (let i = 0; i < times; i++) {
      const a = await d.downloads.access(token);
      await download(d, a, a.files);
    }
  }
  const t = await d.transfers.get(id);
  const view = await d.sharing.view(t);
  assert.equal(
    view.counts.map((c) => [c.recipientId, c.done]).sort(),
    [
      [recipients[0].id, 2],
      [recipients[1].id, 1],
    ].sort(),
  );
  assert.equal((await d.sharing.views([t])).get(id), view);
  assert.equal((await d.sharing.views([])).size, 0);
});

test('automatic reminders: each day-mark mails the recipients who have not downloaded everything, once', async () => {
  const d = domainOnFakes({ config: { transfer_automatic_reminder: [3, 1] } });
  const { recipients } = await sentTransfer(d, alice, { recipients: ['r@example.org', 'q@example.org'] });
  // q downloads everything: only r is reminded.
  const a = await d.downloads.access(recipients[1].token);
  await download(d, a, a.files);
  d.mails.length = 0;
  assert.equal(await d.reminders.run(), { recipients: 0, guests: 0 }, 'a week before expiry: no mark reached');
  d.time.now += 4 * DAY + 60; // 3 days before expiry
  assert.equal((await d.reminders.run()).recipients, 1);
  assert.equal((await d.reminders.run()).recipients, 0, 'the same mark again: nothing');
  d.time.now += 2 * DAY; // 1 day before expiry
  assert.equal((await d.reminders.run()).recipients, 1);
  assert.ok(
    d.mails.every((m) => m.endsWith('r@example.org')),
    d.mails.join(),
  );
  assert.is(d.mails.length, 2);
});

test.run();
