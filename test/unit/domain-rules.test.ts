import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ServiceError } from '../../src/domain/errors';
import type { Actor } from '../../src/domain/model';
import { PURGE_LOCK } from '../../src/domain/purge';
import { domainOnFakes, userActor } from '../fakes/domain';
import { draft, refused, upload } from '../helpers/domain-factories';

// The domain's rules, on the in-memory ports of test/fakes/ (no server, no database, no disk): transfers,
// uploads, guests, usage and purge, each rule in milliseconds. test/http/transfer-repository-contract.test.ts
// shows that the fakes answer as SQLite and PostgreSQL do.

const alice = userActor('alice');
const DAY = 86400;

test('transfers: created started, with its files, recipients and a token each; the recipients are remembered', async () => {
  const d = domainOnFakes();
  const v = await d.transfers.create(alice, draft(d, { recipients: ['r@example.org', 'q@example.org'] }), 'en');
  assert.equal(
    [v.transfer.status, v.transfer.userId, v.files.length, v.recipients.map((r) => r.email)],
    ['started', 'alice', 1, ['r@example.org', 'q@example.org']],
  );
  assert.is(new Set(v.recipients.map((r) => r.token)).size, 2);
  assert.equal(await d.transfers.frequentRecipients('alice', null), ['q@example.org', 'r@example.org']);
  assert.equal(
    (await d.transfers.auditLog(v.transfer)).map((e) => e.event),
    ['transfer_started'],
  );
});

test("transfers: no recipient without get_a_link, too many recipients, a sender not one of the user's addresses: refused, nothing stored", async () => {
  const d = domainOnFakes({ maxRecipients: 2 });
  await refused(d.transfers.create(alice, draft(d, { recipients: [] }), null), 'transfer_no_recipients', [
    'recipients',
  ]);
  await refused(
    d.transfers.create(alice, draft(d, { recipients: ['a@x.org', 'b@x.org', 'c@x.org'] }), null),
    'transfer_too_many_recipients',
  );
  await refused(d.transfers.create(alice, draft(d, { from: 'mallory@example.org' }), null), 'bad_email', ['from']);
  assert.equal(d.world.state.transfers, []);
  const link = await d.transfers.create(alice, draft(d, { recipients: [], options: ['get_a_link'] }), null);
  assert.equal(
    link.recipients.map((r) => r.email),
    [''],
    'get_a_link: one recipient without address, for the link',
  );
});

test("usage: a transfer past the user's quota or the instance's is refused, naming the limit, what is used and what was asked", async () => {
  const d = domainOnFakes({ userQuota: 5000, hostQuota: 8000 });
  await d.transfers.create(alice, draft(d), null);
  await refused(d.transfers.create(alice, draft(d), null), 'transfer_user_quota_exceeded', [
    'quota=5000',
    'used=3000',
    'requested=3000',
  ]);
  await d.transfers.create(userActor('bob'), draft(d, { from: 'bob@example.org' }), null);
  await refused(
    d.transfers.create(userActor('carol'), draft(d, { from: 'carol@example.org' }), null),
    'transfer_host_quota_exceeded',
  );
  assert.equal((await d.usage.quotaOf('alice')).used, 3000);
});

test('uploads: chunks in any order make the file; completion before every byte is refused; then the Transfer is available and mailed', async () => {
  const d = domainOnFakes();
  const v = await d.transfers.create(
    alice,
    draft(d, { files: [{ name: 'a', size: 2500, mimeType: null, cid: null }] }),
    null,
  );
  const f = v.files[0];
  const t = await d.transfers.get(v.transfer.id);
  const chunk = (offset: number, size: number) => ({
    offset,
    size,
    declaredFileSize: null,
    declaredOffset: null,
    body: Buffer.alloc(size, 7),
  });
  await d.uploads.writeChunk(alice, t, await d.uploads.getFile(f.id), chunk(2048, 452));
  await refused(d.uploads.completeFile(alice, t, await d.uploads.getFile(f.id)), 'file_incomplete', [
    'received 452 of 2500',
  ]);
  await refused(d.transfers.complete(alice, t), 'transfer_files_incomplete');
  await d.uploads.writeChunk(alice, t, await d.uploads.getFile(f.id), chunk(0, 1024));
  await d.uploads.writeChunk(alice, t, await d.uploads.getFile(f.id), chunk(1024, 1024));
  const done = await d.uploads.completeFile(alice, t, await d.uploads.getFile(f.id));
  assert.equal([done.complete, done.received], [true, 2500]);
  assert.match(done.sha256 ?? '', /^[0-9a-f]{64}$/);
  assert.is((await d.transfers.get(t.id)).status, 'uploading');
  const after = await d.transfers.complete(alice, await d.transfers.get(t.id));
  assert.is(after.status, 'available');
  assert.equal(d.mails, ['transferAvailable:r@example.org']);
  await d.transfers.complete(alice, after);
  assert.is(d.mails.length, 1, 'a completion sent again mails nobody twice');
});

test('uploads: a chunk past the end of the file, larger than the chunk size, or into a closed Transfer is refused', async () => {
  const d = domainOnFakes({ chunkSize: 1024 });
  const v = await d.transfers.create(
    alice,
    draft(d, { files: [{ name: 'a', size: 2000, mimeType: null, cid: null }] }),
    null,
  );
  const t = await d.transfers.get(v.transfer.id);
  const f = v.files[0];
  const req = (offset: number, size: number) => ({ offset, size, declaredFileSize: null, declaredOffset: null });
  assert.throws(
    () => d.uploads.checkChunk(t, f, req(1500, 1000)),
    (e: ServiceError) => e.id === 'file_chunk_out_of_bounds',
  );
  assert.throws(
    () => d.uploads.checkChunk(t, f, req(0, 2000)),
    (e: ServiceError) => e.id === 'storage_chunk_too_large',
  );
  assert.throws(
    () => d.uploads.checkChunk(t, f, { ...req(0, 10), declaredFileSize: 1999 }),
    (e: ServiceError) => e.id === 'rest_sanity_check_failed',
  );
  const closed = await d.transfers.close(alice, t, 'owner');
  await refused(
    d.uploads.writeChunk(alice, closed, f, { ...req(0, 10), body: Buffer.alloc(10) }),
    'cannot_alter_closed_transfer',
  );
});

test('transfers: the expiry is extended by each step once, then refused', async () => {
  const d = domainOnFakes();
  const v = await d.transfers.create(alice, draft(d), null);
  const first = await d.transfers.extend(alice, v.transfer);
  assert.is(first.expires, v.transfer.expires + 7 * DAY);
  const second = await d.transfers.extend(alice, first);
  assert.is(d.transfers.extensionsLeft(second), 0);
  await refused(d.transfers.extend(alice, second), 'transfer_expiry_extension_count_exceeded');
});

test('lists: the views of a whole list read at once are the views built one Transfer at a time; a page is newest first', async () => {
  const d = domainOnFakes();
  for (let i = 0; i < 12; i++)
    await d.transfers.create(alice, draft(d, { subject: `t${i}`, recipients: [`r${i}@example.org`] }), null);
  await d.transfers.create(userActor('bob'), draft(d, { from: 'bob@example.org' }), null);
  const all = await d.transfers.pageFor(alice, null);
  assert.equal(
    all.map((t) => t.subject),
    Array.from({ length: 12 }, (_, i) => `t${11 - i}`),
  );
  const read = await d.transferViews.pageFor(alice, null);
  assert.is(read.transfers.length, all.length);
  for (const [i, t] of all.entries()) assert.equal(read.transfers[i].view, await d.transfers.view(t));
  assert.equal(
    (await d.transfers.pageFor(alice, { limit: 3, offset: 3 })).map((t) => t.subject),
    ['t8', 't7', 't6'],
  );
  assert.is((await d.transfers.pageAll({ limit: 100, offset: 0 })).length, 13);
});

test("guests: a one-time guest's transfer is sent from the guest, owned by the inviter, and closes the guest once available", async () => {
  const d = domainOnFakes();
  const g = await d.guests.create(
    { userId: 'alice', emails: ['alice@example.org'], fromMustBeOwn: true },
    {
      email: 'gus@example.net',
      userEmail: 'alice@example.org',
      subject: null,
      message: null,
      options: ['email_guest_created', 'valid_only_one_time'],
      transferOptions: [],
      expires: d.time.now + 7 * DAY,
    },
    null,
  );
  assert.equal(d.mails, ['guestCreated:gus@example.net']);
  const gusActor: Actor = {
    type: 'guest',
    id: String(g.id),
    emails: [g.email],
    ip: null,
    fromMustBeOwn: false,
    guestId: g.id,
  };
  const v = await d.transfers.create(gusActor, draft(d, { from: 'whoever@example.org' }), null);
  assert.equal([v.transfer.userId, v.transfer.userEmail, v.transfer.guestId], ['alice', 'gus@example.net', g.id]);
  assert.equal(
    (await d.transfers.pageFor(gusActor, null)).map((t) => t.id),
    [v.transfer.id],
  );
  await refused(d.transfers.create(gusActor, draft(d), null), 'rest_access_forbidden', ['valid_only_one_time']);
  await upload(d, gusActor, v.transfer.id);
  const after = await d.guests.get(g.id);
  assert.equal([after.status, after.transferCount], ['closed', 1]);
});

test('purge: an expired Transfer is closed and its data deleted; an expired guest closed; a dry run changes nothing', async () => {
  const d = domainOnFakes();
  const v = await d.transfers.create(alice, draft(d, { options: ['email_me_on_expire'] }), null);
  await upload(d, alice, v.transfer.id);
  await d.guests.create(
    { userId: 'alice', emails: ['alice@example.org'], fromMustBeOwn: true },
    {
      email: 'g@example.net',
      userEmail: 'alice@example.org',
      subject: null,
      message: null,
      options: [],
      transferOptions: [],
      expires: d.time.now + DAY,
    },
    null,
  );
  assert.is(d.files.data.size, 1);
  d.time.now += 8 * DAY;
  const dry = await d.purge.run({ dryRun: true });
  assert.equal([dry.transfers_expired, dry.guests_expired, dry.bytes_freed], [1, 1, 3000]);
  assert.is((await d.transfers.get(v.transfer.id)).status, 'available');
  assert.is(d.files.data.size, 1);
  const report = await d.purge.run();
  assert.equal([report.transfers_expired, report.guests_expired], [1, 1]);
  const t = await d.transfers.get(v.transfer.id);
  assert.equal([t.status, t.closedReason], ['closed', 'expired']);
  assert.is(d.files.data.size, 0);
  assert.ok(d.mails.includes('transferExpired:r@example.org') || d.mails.some((m) => m.startsWith('transferExpired:')));
  d.time.now += 40 * DAY;
  assert.is((await d.purge.run()).closed_transfers_deleted, 1, 'its records go once the audit log lifetime has passed');
  assert.equal(d.world.state.transfers, []);
});

test('purge under its lock: a pass while another holds it does nothing and says so; the lock is free again after', async () => {
  const d = domainOnFakes();
  const release = await d.world.locks.tryLock(PURGE_LOCK);
  let locked = 0;
  assert.is(await d.purge.runExclusive({}, () => locked++), null);
  assert.is(locked, 0);
  await release!();
  const report = await d.purge.runExclusive({ dryRun: true }, () => locked++);
  assert.equal([report?.dry_run, locked], [true, 1]);
  // A pass that fails lets the lock go too.
  d.files.list = async () => {
    throw new Error('store down');
  };
  const failed = await d.purge.runExclusive().catch((e: Error) => e);
  assert.is((failed as Error).message, 'store down');
  assert.ok(await d.world.locks.tryLock(PURGE_LOCK), 'free after the failed pass');
});

test.run();
