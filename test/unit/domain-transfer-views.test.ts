import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { domainOnFakes, userActor } from '../fakes/domain';
import { draft, refused, sentTransfer } from '../helpers/domain-factories';

// The transfer read model (src/domain/transfer-views.ts) and updating a transfer (src/domain/transfer-updates.ts,
// PUT /transfer/{id}), on the in-memory ports of test/fakes/: what every answer showing a transfer is built from,
// and each change the update asks for under the rules of its own use case.

const alice = userActor('alice');
const DAY = 86400;
const mail = (to: string) => ({ from: 'f@example.org', to, subject: 's', text: 't', html: 'h', lang: 'en' });

test('read model: files, recipients with their bounces and mail states, sharing controls, the scan', async () => {
  const d = domainOnFakes({ scan: () => ({ clean: true }) });
  const { id, recipients } = await sentTransfer(d, alice, {
    recipients: ['r@example.org', 'q@example.org'],
    sharing: { downloadLimit: 3, passwordHash: null },
  });
  await d.virusScans.kick();
  const [r, q] = recipients;
  const bounce = { type: 'bounce', date: d.time.now, details: '550 no such user' };
  await d.world.repos.trackingErrors.add('Recipient', r.id, bounce);
  await d.world.repos.mailQueue.enqueue(mail('q@example.org'), d.time.now, { type: 'Recipient', id: q.id });
  const t = await d.transfers.get(id);
  const read = await d.transferViews.one(t);
  assert.is(read.scanning, true);
  assert.is(read.transfers.length, 1);
  const [one] = read.transfers;
  assert.is(one.view.transfer.id, id);
  assert.equal(
    one.view.files.map((f) => [f.name, f.complete]),
    [['a.bin', true]],
  );
  assert.equal(
    one.view.recipients.map((x) => [x.email, x.errors]),
    [
      ['r@example.org', [bounce]],
      ['q@example.org', []],
    ],
  );
  assert.is(read.delivery.get(q.id)?.state, 'queued');
  assert.is(read.delivery.has(r.id), false);
  assert.is(one.sharing?.controls.downloadLimit, 3);
  assert.is(one.scan?.state, 'clean');
  assert.is(one.extensionsLeft, 2);
  // A list reads the same, whatever its number; an empty one reads nothing.
  const other = await sentTransfer(d, alice);
  const many = await d.transferViews.many([t, await d.transfers.get(other.id)]);
  assert.equal(many.transfers[0], one);
  assert.equal(
    many.transfers.map((x) => x.view.transfer.id),
    [id, other.id],
  );
  assert.equal((await d.transferViews.many([])).transfers, []);
});

test('read model: without antivirus nothing is scanned; a view a change just built is shown as it is', async () => {
  const d = domainOnFakes();
  const v = await d.transfers.create(alice, draft(d), 'en');
  const read = await d.transferViews.one(v);
  assert.is(read.scanning, false);
  assert.is(read.transfers[0].view.cids, v.cids);
  assert.is(read.transfers[0].scan, undefined);
  assert.is(read.transfers[0].sharing?.controls.downloadLimit ?? null, null);
});

test("read model: a user's page holds only their transfers, newest first; the admins' holds everyone's", async () => {
  const d = domainOnFakes();
  const bob = userActor('bob');
  const a1 = await sentTransfer(d, alice);
  const b1 = await sentTransfer(d, bob, { from: 'bob@example.org' });
  const a2 = await sentTransfer(d, alice);
  const ids = (r: { transfers: { view: { transfer: { id: number } } }[] }) =>
    r.transfers.map((x) => x.view.transfer.id);
  assert.equal(ids(await d.transferViews.pageFor(alice, null)), [a2.id, a1.id]);
  assert.equal(ids(await d.transferViews.pageFor(alice, { limit: 1, offset: 0 })), [a2.id]);
  assert.equal(ids(await d.transferViews.pageAll(null)).sort(), [a1.id, b1.id, a2.id].sort());
});

test('update: unknown or mistyped fields are refused before anything changes', async () => {
  const d = domainOnFakes();
  const { id } = await sentTransfer(d, alice);
  const t = await d.transfers.get(id);
  await refused(d.transferUpdates.update(alice, t, { closed: true, colour: 'red' }), 'rest_bad_parameter', ['colour']);
  await refused(d.transferUpdates.update(alice, t, { closed: 'yes' }), 'rest_bad_parameter', ['closed']);
  await refused(d.transferUpdates.update(alice, t, { download_limit: -1 }), 'rest_bad_parameter');
  assert.is((await d.transfers.get(id)).status, 'available');
  assert.equal(await d.transferUpdates.update(alice, t, {}), t, 'nothing asked: nothing changed');
});

test('update: download limit, extend and remind in one request; then closed, after which nothing changes', async () => {
  const d = domainOnFakes();
  const { id } = await sentTransfer(d, alice);
  const t = await d.transfers.get(id);
  d.mails.length = 0;
  const after = await d.transferUpdates.update(alice, t, { download_limit: 2, extend_expiry_date: true, remind: true });
  assert.is(after.expires, t.expires + 7 * DAY);
  assert.is((await d.sharing.view(after)).controls.downloadLimit, 2);
  assert.ok(
    d.mails.some((m) => m.endsWith(':r@example.org')),
    d.mails.join(),
  );
  const closed = await d.transferUpdates.update(alice, after, { closed: true });
  assert.is(closed.status, 'closed');
  await refused(d.transferUpdates.update(alice, closed, { download_limit: 5 }), 'cannot_alter_closed_transfer');
});

test('update: complete makes an uploaded transfer available; asked too early it is refused', async () => {
  const d = domainOnFakes();
  const v = await d.transfers.create(alice, draft(d), 'en');
  await refused(d.transferUpdates.update(alice, v.transfer, { complete: true }), 'transfer_files_incomplete');
  const f = v.files[0];
  for (let at = 0; at < f.size; at += 1024) {
    const body = Buffer.alloc(Math.min(1024, f.size - at));
    const req = { offset: at, size: body.length, declaredFileSize: null, declaredOffset: null, body };
    await d.uploads.writeChunk(alice, v.transfer, await d.uploads.getFile(f.id), req);
  }
  await d.uploads.completeFile(alice, v.transfer, await d.uploads.getFile(f.id));
  const done = await d.transferUpdates.update(alice, await d.transfers.get(v.transfer.id), { complete: true });
  assert.is(done.status, 'available');
});

test.run();
