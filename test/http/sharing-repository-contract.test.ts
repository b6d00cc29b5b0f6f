import * as assert from 'uvu/assert';
import type { Page } from '../../src/domain/paging';
import type { TransferOwner } from '../../src/domain/ports';
import { forEachWorld, newGuestIn, newTransferIn, type RepositoryWorld } from '../helpers/repository-worlds';

// The repository contract of what happens after an upload (sharing controls, download claims, automatic
// reminders, virus scans, the mail queue), run on the in-memory fakes of test/fakes/ as on SQLite and
// PostgreSQL: the domain's unit tests on the fakes hold on the databases too. The same cases, the same answers.

const T0 = 1_900_000_000;
const msg = (to: string) => ({ from: 'ferry@x.org', to, subject: 's', text: 't', html: 'h', lang: 'en' });

forEachWorld('after an upload: the repositories', (it) => {
  /** A Transfer with its file and recipient ids. */
  const transferWith = async (w: RepositoryWorld, user: string, files = 2, recipients = 2) => {
    const id = await newTransferIn(w, user, { files, recipients });
    return {
      id,
      files: (await w.repos.transfers.files(id)).map((f) => f.id),
      recipients: (await w.repos.transfers.recipients(id)).map((r) => r.id),
    };
  };

  it('sharing controls: none until set, replaced as a whole, read for a page of transfers at once', async ({ w }) => {
    const a = await transferWith(w, 'sc-a');
    const b = await transferWith(w, 'sc-b');
    assert.equal(await w.repos.sharing.controls(a.id), { downloadLimit: null, passwordHash: null });
    await w.repos.sharing.setControls(a.id, { downloadLimit: 3, passwordHash: 'scrypt$x' });
    await w.repos.sharing.setControls(a.id, { downloadLimit: 5, passwordHash: null });
    assert.equal(await w.repos.sharing.controls(a.id), { downloadLimit: 5, passwordHash: null });
    const views = await w.repos.sharing.viewsOf([a.id, b.id]);
    assert.equal(views.get(a.id), { controls: { downloadLimit: 5, passwordHash: null }, counts: [] });
    assert.equal(views.get(b.id), { controls: { downloadLimit: null, passwordHash: null }, counts: [] });
  });

  it('download claims: sent ranges and a lease; only the holder records; done ones counted per link and file', async ({
    w,
  }) => {
    const t = await transferWith(w, 'dc');
    const [r1, r2] = t.recipients;
    const [f1, f2] = t.files;
    const c1 = await w.uow.run(async (tx) => {
      await tx.sharing.holdLink(r1);
      return tx.sharing.claim(r1, f1, T0, 'lease-a', T0 + 60);
    });
    const c2 = await w.repos.sharing.claim(r1, f1, T0 + 10, 'lease-b', T0 + 70);
    const c3 = await w.repos.sharing.claim(r2, f2, T0 + 10, 'lease-c', T0 + 70);
    assert.equal(await w.repos.sharing.claims(r1, [f1, f2]), [
      { id: c1, fileId: f1, claimed: T0, done: null, sent: [], resent: 0, leaseUntil: T0 + 60 },
      { id: c2, fileId: f1, claimed: T0 + 10, done: null, sent: [], resent: 0, leaseUntil: T0 + 70 },
    ]);
    // Progress while sending renews the lease; the end of the response lets the claim go.
    assert.ok(
      await w.repos.sharing.record(c1, 'lease-a', { sent: [[0, 5]], resent: 0, done: null, leaseUntil: T0 + 90 }),
    );
    assert.ok(
      await w.repos.sharing.record(c1, 'lease-a', { sent: [[0, 9]], resent: 2, done: T0 + 20, leaseUntil: null }),
    );
    assert.not.ok(
      await w.repos.sharing.record(c1, 'lease-a', { sent: [], resent: 0, done: null, leaseUntil: T0 + 99 }),
      'let go: that response holds it no longer',
    );
    assert.not.ok(
      await w.repos.sharing.record(c2, 'lease-x', { sent: [[0, 1]], resent: 0, done: null, leaseUntil: null }),
      'another lease writes nothing',
    );
    assert.ok(await w.repos.sharing.record(c2, 'lease-b', { sent: [[0, 3]], resent: 0, done: null, leaseUntil: null }));
    assert.equal(await w.repos.sharing.claims(r1, [f1]), [
      { id: c1, fileId: f1, claimed: T0, done: T0 + 20, sent: [[0, 9]], resent: 2, leaseUntil: 0 },
      { id: c2, fileId: f1, claimed: T0 + 10, done: null, sent: [[0, 3]], resent: 0, leaseUntil: 0 },
    ]);
    // A resumed download takes the claim no response holds; the old lease is shut out.
    await w.repos.sharing.take(c2, 'lease-d', T0 + 100);
    assert.equal(
      (await w.repos.sharing.claims(r1, [f1])).map((c) => [c.id, c.leaseUntil, c.sent]),
      [
        [c1, 0, [[0, 9]]],
        [c2, T0 + 100, [[0, 3]]],
      ],
    );
    assert.not.ok(await w.repos.sharing.record(c2, 'lease-b', { sent: [], resent: 0, done: null, leaseUntil: null }));
    assert.ok(
      await w.repos.sharing.record(c2, 'lease-d', { sent: [[0, 9]], resent: 0, done: T0 + 40, leaseUntil: null }),
    );
    assert.ok(
      await w.repos.sharing.record(c3, 'lease-c', { sent: [[0, 9]], resent: 0, done: T0 + 40, leaseUntil: null }),
    );
    const counts = (await w.repos.sharing.doneCounts(t.id)).sort((a, b) => a.recipientId - b.recipientId);
    assert.equal(counts, [
      { recipientId: r1, fileId: f1, done: 2 },
      { recipientId: r2, fileId: f2, done: 1 },
    ]);
    assert.equal((await w.repos.sharing.viewsOf([t.id])).get(t.id)!.counts.length, 2);
    assert.equal(await w.repos.sharing.claims(r1, []), []);
  });

  it('automatic reminders: transfers due by a date, links with every file, each reminder claimed once', async ({
    w,
  }) => {
    const t = await transferWith(w, 'ar');
    const [r1, r2] = t.recipients;
    await w.repos.transfers.setStatus(t.id, 'available', T0);
    const expires = (await w.repos.transfers.find(t.id))!.expires;
    const due = async (now: number, until: number) =>
      (await w.repos.sharing.remindableTransfers(now, until)).map((x) => x.id).includes(t.id);
    assert.ok(await due(expires - 10, expires));
    assert.not.ok(await due(expires - 10, expires - 1), 'expires after the date');
    assert.not.ok(await due(expires, expires + 10), 'expired');
    await w.repos.transfers.markReceived(r1, t.files, t.files, T0);
    await w.repos.transfers.markReceived(r2, [t.files[0]], t.files, T0);
    assert.equal([...(await w.repos.sharing.recipientsWithAll(t.id, t.files))], [r1]);
    assert.equal([...(await w.repos.sharing.recipientsWithAll(t.id, [t.files[0]]))].sort(), [r1, r2].sort());
    const claimed = await Promise.all([1, 2].map(() => w.repos.sharing.claimReminder('Recipient', r2, 3, T0)));
    assert.equal(claimed.filter(Boolean).length, 1, 'one node sends it');
    assert.ok(await w.repos.sharing.claimReminder('Recipient', r2, 1, T0 + 5), 'another day is another reminder');
    assert.ok(await w.repos.sharing.claimReminder('Guest', r2, 3, T0 + 5), 'a guest of the same id is another target');
    assert.equal(await w.repos.sharing.remindersOf('Recipient', [r1, r2]), [
      { targetId: r2, days: 3, sent: T0 },
      { targetId: r2, days: 1, sent: T0 + 5 },
    ]);
  });

  it('virus scans: begun once, claimed by one caller until the lease lapses, held and tried again, found per file', async ({
    w,
  }) => {
    const t = await transferWith(w, 'vs');
    const other = await transferWith(w, 'vs2', 1, 1);
    await w.uow.run((tx) => tx.virusScans.begin(t.id, T0));
    await w.repos.virusScans.begin(t.id, T0 + 99);
    assert.equal(await w.repos.virusScans.find(t.id), {
      transferId: t.id,
      state: 'checking',
      started: T0,
      finished: null,
      error: null,
      findings: [],
    });
    assert.is(await w.repos.virusScans.find(other.id), undefined, 'never scanned');
    const claims = await Promise.all([1, 2].map(() => w.repos.virusScans.claim(T0, T0 + 60, T0)));
    assert.equal(
      claims.filter((c) => c !== undefined),
      [{ transferId: t.id, lapsed: false }],
      'one caller has it',
    );
    assert.is(await w.repos.virusScans.claim(T0 + 30, T0 + 90, T0 + 30), undefined, 'still leased');
    assert.is(await w.repos.virusScans.nextLapse(T0 + 30), T0 + 60, 'the claim lapses at its end');
    await w.repos.virusScans.renew(t.id, T0 + 120);
    assert.is(await w.repos.virusScans.claim(T0 + 90, T0 + 150, T0 + 90), undefined, 'renewed: still leased');
    assert.is(await w.repos.virusScans.nextLapse(T0 + 90), T0 + 120, 'the renewed claim lapses later');
    await w.repos.virusScans.hold(t.id, T0 + 200, 'clamd unreachable');
    assert.is(await w.repos.virusScans.nextLapse(T0 + 90), undefined, 'held: no claim runs');
    await w.repos.virusScans.renew(t.id, T0 + 150);
    assert.is(await w.repos.virusScans.nextLapse(T0 + 90), undefined, 'a claim given up is not renewed');
    assert.equal(await w.repos.virusScans.held().then((h) => h.includes(t.id)), true);
    assert.is(await w.repos.virusScans.claim(T0 + 100, T0 + 160, T0 + 100), undefined, 'held: not due yet');
    assert.equal(
      await w.repos.virusScans.claim(T0 + 100, T0 + 160, T0 + 200),
      { transferId: t.id, lapsed: false },
      'due again',
    );
    assert.equal(
      await w.repos.virusScans.claim(T0 + 170, T0 + 230, T0 + 200),
      { transferId: t.id, lapsed: true },
      'the lease lapsed: taken over',
    );
    await w.repos.virusScans.finish(t.id, 'infected', T0 + 300, null, [
      { fileId: t.files[1], signature: 'Eicar-Test-Signature' },
      { fileId: t.files[0], signature: 'Other' },
    ]);
    const scan = (await w.repos.virusScans.findMany([t.id, other.id])).get(t.id)!;
    assert.equal(
      [scan.state, scan.finished, scan.error, scan.findings],
      [
        'infected',
        T0 + 300,
        null,
        [
          { fileId: t.files[0], signature: 'Other' },
          { fileId: t.files[1], signature: 'Eicar-Test-Signature' },
        ],
      ],
    );
    assert.not.ok((await w.repos.virusScans.held()).includes(t.id));
    assert.is(await w.repos.virusScans.claim(T0 + 999, T0 + 1999, T0 + 999), undefined, 'finished: never claimed');
    await w.repos.purge.deleteTransferRecords(t.id);
    assert.is(await w.repos.virusScans.find(t.id), undefined, 'purged with its Transfer');
  });

  it('purge: a Transfer takes its sharing controls and download claims with it', async ({ w }) => {
    const t = await transferWith(w, 'pg', 1, 1);
    await w.repos.sharing.setControls(t.id, { downloadLimit: 1, passwordHash: null });
    const c = await w.repos.sharing.claim(t.recipients[0], t.files[0], T0, 'lease-p', T0 + 60);
    await w.repos.sharing.record(c, 'lease-p', { sent: [[0, 9]], resent: 0, done: T0, leaseUntil: null });
    await w.repos.purge.deleteTransferRecords(t.id);
    assert.equal(await w.repos.sharing.controls(t.id), { downloadLimit: null, passwordHash: null });
    assert.equal(await w.repos.sharing.claims(t.recipients[0], t.files), []);
  });

  it('mail queue: due messages claimed once, retried, sent or failed; counted by state; the next due time', async ({
    w,
  }) => {
    const q = w.repos.mailQueue;
    // Other cases of this world queue no mail: the counts start at nothing.
    const base = await q.counts();
    const a = await q.enqueue(msg('a@x.org'), T0, null);
    const b = await q.enqueue(msg('b@x.org'), T0 + 5, null);
    assert.is(await q.nextDue(T0), 0, 'one is due now');
    const first = await q.claimDue(T0, T0 + 60, 10);
    assert.equal(
      first.map((m) => [m.id, m.to, m.message.subject]),
      [[a, 'a@x.org', 's']],
      'only what is due',
    );
    assert.equal(await q.claimDue(T0 + 1, T0 + 60, 10), [], 'claimed: not due before the claim ends');
    assert.is(await q.nextDue(T0 + 1), 4);
    await q.markRetry(a, T0 + 100, 'greylisted');
    const second = await q.claimDue(T0 + 10, T0 + 70, 10);
    assert.equal(
      second.map((m) => m.id),
      [b],
    );
    await q.markSent(b, T0 + 11);
    const third = await q.claimDue(T0 + 100, T0 + 160, 10);
    assert.equal(
      third.map((m) => [m.id, m.attempts > 0]),
      [[a, true]],
      'tried again, its attempts counted',
    );
    await q.markFailed(a, 'mailbox unknown');
    assert.is(await q.nextDue(T0 + 200), null, 'none pending');
    const counts = await q.counts();
    assert.is((counts.sent ?? 0) - (base.sent ?? 0), 1);
    assert.is((counts.failed ?? 0) - (base.failed ?? 0), 1);
    assert.is((counts.pending ?? 0) - (base.pending ?? 0), 0);
  });

  it('mail delivery: per target, the latest mail; a failed one queued again once, a sent one not', async ({ w }) => {
    const t = await transferWith(w, 'md', 1, 2);
    const [r1, r2] = t.recipients;
    const m1 = await q(w).enqueue(msg('r1@x.org'), T0, { type: 'Recipient', id: r1 });
    const m2 = await q(w).enqueue(msg('r2@x.org'), T0, { type: 'Recipient', id: r2 });
    await q(w).claimDue(T0, T0 + 60, 10);
    await q(w).markSent(m1, T0 + 1);
    await q(w).markFailed(m2, 'bounced');
    const delivery = await q(w).deliveryFor('Recipient', [r1, r2]);
    assert.is(delivery.size, 2);
    assert.not.ok(await q(w).requeueUndelivered('Recipient', r1, T0 + 5), 'sent: nothing to do');
    assert.ok(await q(w).requeueUndelivered('Recipient', r2, T0 + 5));
    assert.not.ok(await q(w).requeueUndelivered('Recipient', r2, T0 + 6), 'queued already');
    assert.equal(
      (await q(w).claimDue(T0 + 5, T0 + 65, 10)).map((m) => [m.id, m.targetId]),
      [[m2, r2]],
    );
  });

  it("a list's extras in one read: the same as each repository's own read, for the Transfers asked only", async ({
    w,
  }) => {
    const a = await transferWith(w, 'xa', 2, 2);
    const b = await transferWith(w, 'xb', 1, 1);
    const quiet = await transferWith(w, 'xc', 1, 1);
    const other = await transferWith(w, 'xd', 1, 1);
    // a: sharing controls, two downloads done, a scan with findings, a bounce, mails (one sent, one failed).
    await w.repos.sharing.setControls(a.id, { downloadLimit: 4, passwordHash: 'scrypt$p' });
    for (const [r, f, lease] of [
      [a.recipients[0], a.files[0], 'l1'],
      [a.recipients[0], a.files[0], 'l2'],
      [a.recipients[1], a.files[1], 'l3'],
    ] as const) {
      const c = await w.repos.sharing.claim(r, f, T0, lease, T0 + 60);
      await w.repos.sharing.record(c, lease, { sent: [[0, 9]], resent: 0, done: T0 + 5, leaseUntil: null });
    }
    await w.repos.sharing.claim(a.recipients[1], a.files[0], T0, 'open', T0 + 60); // not done: not counted
    await w.repos.virusScans.begin(a.id, T0);
    await w.repos.virusScans.finish(a.id, 'infected', T0 + 9, null, [
      { fileId: a.files[1], signature: 'Sig-B' },
      { fileId: a.files[0], signature: 'Sig-A' },
    ]);
    await w.repos.trackingErrors.add('Recipient', a.recipients[1], { type: 'bounce', date: T0 + 3, details: '550' });
    await w.repos.trackingErrors.add('Recipient', a.recipients[1], { type: 'bounce', date: T0 + 4, details: '551' });
    const first = await q(w).enqueue(msg('a0@x.org'), T0, { type: 'Recipient', id: a.recipients[0] });
    const failed = await q(w).enqueue(msg('a1@x.org'), T0, { type: 'Recipient', id: a.recipients[1] });
    await q(w).claimDue(T0, T0 + 60, 10);
    await q(w).markSent(first, T0 + 1);
    await q(w).markFailed(failed, 'bounced');
    await q(w).enqueue(msg('a0@x.org'), T0 + 2, { type: 'Recipient', id: a.recipients[0] }); // the latest: queued
    // b: a scan still running, no findings; a mail queued. quiet: nothing. other: not asked for.
    await w.repos.virusScans.begin(b.id, T0);
    await q(w).enqueue(msg('b0@x.org'), T0, { type: 'Recipient', id: b.recipients[0] });
    await w.repos.sharing.setControls(other.id, { downloadLimit: 1, passwordHash: null });
    await w.repos.trackingErrors.add('Recipient', other.recipients[0], { type: 'bounce', date: T0, details: 'x' });
    await q(w).enqueue(msg('d0@x.org'), T0, { type: 'Recipient', id: other.recipients[0] });

    const ids = [a.id, b.id, quiet.id];
    const recipients = [...a.recipients, ...b.recipients, ...quiet.recipients];
    const extras = await w.repos.transferExtras.of(ids);
    const sorted = <T>(m: Map<number, T>) => [...m.entries()].sort(([x], [y]) => x - y);
    const sharing = await w.repos.sharing.viewsOf(ids);
    for (const v of sharing.values()) v.counts.sort((x, y) => x.recipientId - y.recipientId || x.fileId - y.fileId);
    for (const v of extras.sharing.values())
      v.counts.sort((x, y) => x.recipientId - y.recipientId || x.fileId - y.fileId);
    assert.equal(sorted(extras.sharing), sorted(sharing));
    assert.equal(extras.sharing.get(a.id), {
      controls: { downloadLimit: 4, passwordHash: 'scrypt$p' },
      counts: [
        { recipientId: a.recipients[0], fileId: a.files[0], done: 2 },
        { recipientId: a.recipients[1], fileId: a.files[1], done: 1 },
      ],
    });
    assert.equal(sorted(extras.scans), sorted(await w.repos.virusScans.findMany(ids)));
    assert.equal(
      extras.scans.get(a.id)?.findings.map((f) => f.signature),
      ['Sig-A', 'Sig-B'],
    );
    assert.is(extras.scans.get(b.id)?.state, 'checking');
    assert.not.ok(extras.scans.has(quiet.id));
    const errors = await w.repos.trackingErrors.forTargets('Recipient', recipients);
    assert.equal(sorted(extras.errors), sorted(errors));
    assert.equal(
      extras.errors.get(a.recipients[1])?.map((e) => e.details),
      ['550', '551'],
    );
    const delivery = await q(w).deliveryFor('Recipient', recipients);
    assert.equal(sorted(extras.delivery), sorted(delivery));
    assert.equal(
      [a.recipients[0], a.recipients[1], b.recipients[0]].map((r) => extras.delivery.get(r)?.state),
      ['queued', 'bounced', 'queued'],
    );
    // Nothing of a Transfer not asked for.
    assert.not.ok(extras.sharing.has(other.id));
    assert.not.ok(extras.errors.has(other.recipients[0]) || extras.delivery.has(other.recipients[0]));
    assert.equal(await w.repos.transferExtras.of([]), {
      sharing: new Map(),
      scans: new Map(),
      errors: new Map(),
      delivery: new Map(),
    });
  });

  it("a page's files and recipients in the same read: what filesOf and recipientsOf give, also past a thousand ids", async ({
    w,
  }) => {
    const a = await transferWith(w, 'wa', 3, 2);
    const b = await transferWith(w, 'wb', 1, 3);
    const other = await transferWith(w, 'wc', 1, 1);
    await w.repos.transfers.deleteFile(a.files[1], T0);
    await w.repos.transfers.deleteRecipient(b.recipients[0], T0);
    await w.repos.sharing.setControls(b.id, { downloadLimit: 2, passwordHash: null });
    await q(w).enqueue(msg('b1@x.org'), T0, { type: 'Recipient', id: b.recipients[1] });
    // The Transfers asked for after a thousand others (ids no Transfer has): the read goes on past its first part.
    const ids = [...Array.from({ length: 1200 }, (_, i) => 900_000_000 + i), b.id, a.id];
    const read = await w.repos.transferExtras.withRowsOf(ids);
    assert.equal(read.files, await w.repos.transfers.filesOf([a.id, b.id]));
    assert.equal(read.recipients, await w.repos.transfers.recipientsOf([a.id, b.id]));
    assert.equal(
      read.files.map((f) => f.id),
      [a.files[0], a.files[2], b.files[0]],
    );
    assert.equal(
      read.recipients.map((r) => r.id),
      [...a.recipients, b.recipients[1], b.recipients[2]],
    );
    assert.not.ok(read.files.some((f) => f.transferId === other.id));
    // The rest as of() gives it.
    const extras = await w.repos.transferExtras.of(ids);
    assert.equal({ sharing: read.sharing, scans: read.scans, errors: read.errors, delivery: read.delivery }, extras);
    assert.is(read.sharing.get(b.id)?.controls.downloadLimit, 2);
    assert.is(read.delivery.get(b.recipients[1])?.state, 'queued');
    assert.is(read.sharing.size, ids.length);
  });

  it("a page with everything it is shown with in one read: listPage's Transfers, by key and by offset, for a user, a guest and all", async ({
    w,
  }) => {
    const guest = await newGuestIn(w, 'pg-u');
    const mine: number[] = [];
    for (let i = 0; i < 5; i++) mine.push(await newTransferIn(w, 'pg-u', { files: 2, recipients: 1 }));
    const theirs = await newTransferIn(w, 'pg-u', { guestId: guest.id, files: 1, recipients: 2 });
    await newTransferIn(w, 'pg-other');
    await w.repos.transfers.deleteFile((await w.repos.transfers.files(mine[3]))[0].id, T0);
    await w.repos.sharing.setControls(mine[3], { downloadLimit: 3, passwordHash: null });
    const recipient = (await w.repos.transfers.recipients(mine[3]))[0].id;
    await w.repos.trackingErrors.add('Recipient', recipient, { type: 'bounce', date: T0, details: '550' });
    await q(w).enqueue(msg('m@x.org'), T0, { type: 'Recipient', id: recipient });
    const cases: [TransferOwner, Page][] = [
      [{ userId: 'pg-u' }, { limit: 3, offset: 0, after: null }],
      [{ userId: 'pg-u' }, { limit: 3, offset: 2, after: null }],
      [{ userId: 'pg-u' }, { limit: 2, offset: 0, after: String(mine[4]) }],
      [{ userId: 'pg-u' }, { limit: 50, offset: 0, after: String(mine[0]) }],
      [{ guestId: guest.id }, { limit: 10, offset: 0, after: null }],
      ['all', { limit: 4, offset: 0, after: null }],
      ['all', { limit: 4, offset: 0, after: String(theirs) }],
    ];
    for (const [owner, page] of cases) {
      const read = await w.repos.transferExtras.pageWithRows(owner, page);
      const transfers = await w.repos.transfers.listPage(owner, page);
      assert.equal(read.transfers, transfers, JSON.stringify([owner, page]));
      const { transfers: _, ...rest } = read;
      assert.equal(rest, await w.repos.transferExtras.withRowsOf(transfers.map((t) => t.id)));
    }
    const first = await w.repos.transferExtras.pageWithRows({ userId: 'pg-u' }, { limit: 3, offset: 0, after: null });
    assert.equal(
      first.transfers.map((t) => t.id),
      [theirs, mine[4], mine[3]],
    );
    assert.is(first.files.filter((f) => f.transferId === mine[3]).length, 1);
    assert.is(first.sharing.get(mine[3])?.controls.downloadLimit, 3);
    assert.equal(
      first.errors.get(recipient)?.map((e) => e.details),
      ['550'],
    );
    assert.is(first.delivery.get(recipient)?.state, 'queued');
    const none = await w.repos.transferExtras.pageWithRows({ userId: 'nobody' }, { limit: 5, offset: 0, after: null });
    assert.equal(none.transfers, []);
    assert.equal(none.files, []);
  });

  it('a unit of work that fails leaves none of its changes behind', async ({ w }) => {
    const t = await transferWith(w, 'rb', 1, 1);
    await w.uow
      .run(async (tx) => {
        await tx.sharing.setControls(t.id, { downloadLimit: 9, passwordHash: null });
        await tx.sharing.claim(t.recipients[0], t.files[0], T0, 'lease-r', T0 + 60);
        await tx.virusScans.begin(t.id, T0);
        throw new Error('rolled back');
      })
      .catch(() => {});
    assert.equal(await w.repos.sharing.controls(t.id), { downloadLimit: null, passwordHash: null });
    assert.equal(await w.repos.sharing.claims(t.recipients[0], t.files), []);
    assert.is(await w.repos.virusScans.find(t.id), undefined);
  });
});

const q = (w: RepositoryWorld) => w.repos.mailQueue;
