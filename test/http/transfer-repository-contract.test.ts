import * as assert from 'uvu/assert';
import {
  forEachWorld,
  newTransferIn,
  newGuestIn,
  failedUnitOfWork,
  withAuditAndBounce,
} from '../helpers/repository-worlds';

// The repository contract of what the domain's rules use (transfers, lists and pages, files and ranges,
// recipients, guests, frequent recipients, audit, tracking errors, purge, usage, units of work, locks), run on
// the in-memory fakes of test/fakes/ as on SQLite and a real PostgreSQL server: the domain tests that run on the
// fakes (test/unit/domain-*.test.ts) hold on the databases too. The same cases, the same answers.

const T0 = 1_900_000_000;
let serial = 0;
const unique = (prefix: string) =>
  `${prefix}${(++serial).toString(16)}${Math.random().toString(16).slice(2)}`.padEnd(32, '0').slice(0, 32);
const newTransfer = newTransferIn;

forEachWorld("the domain's repositories", (it) => {
  it('a Transfer is read back as stored, with its files and recipients; ids grow', async ({ w }) => {
    const id = await newTransfer(w, 'alice', { files: 2, recipients: 2 });
    const t = (await w.repos.transfers.find(id))!;
    assert.equal(
      [t.userId, t.status, t.options, t.expires, t.guestId, t.madeAvailable],
      ['alice', 'created', ['get_a_link'], T0 + 86400, null, null],
    );
    const files = await w.repos.transfers.files(id);
    assert.equal(
      files.map((f) => [f.name, f.size, f.cid, f.received, f.ranges, f.complete]),
      [
        ['f0', 100, 'c0', 0, [], false],
        ['f1', 101, 'c1', 0, [], false],
      ],
    );
    const rs = await w.repos.transfers.recipients(id);
    assert.equal(
      rs.map((r) => [r.email, r.lang, r.errors]),
      [
        ['r0@alice.org', 'de', []],
        ['r1@alice.org', 'de', []],
      ],
    );
    assert.equal((await w.repos.transfers.recipientByToken(rs[1].token))?.id, rs[1].id);
    assert.ok((await newTransfer(w)) > id);
    assert.is(await w.repos.transfers.find(999_999), undefined);
  });

  it('counts by status (the metrics): each Transfer in its status once; the probe reads without failing', async ({
    w,
  }) => {
    const before = await w.repos.transfers.countByStatus();
    const id = await newTransfer(w, 'counted');
    await newTransfer(w, 'counted');
    await w.repos.transfers.setStatus(id, 'closed', T0 + 5, 'owner');
    const after = await w.repos.transfers.countByStatus();
    const delta = (s: string) => (after[s] ?? 0) - (before[s] ?? 0);
    assert.equal([delta('created'), delta('closed')], [1, 1]);
    assert.ok(
      Object.values(after).every((n) => typeof n === 'number' && n > 0),
      JSON.stringify(after),
    );
    await w.repos.transfers.probe();
  });

  it('pages: newest first, by user, by guest or all; the batches give what one Transfer at a time gives, past 500 Transfers too', async ({
    w,
  }) => {
    const mine: number[] = [];
    for (let i = 0; i < 520; i++)
      mine.push(await newTransfer(w, 'pager', { files: 1 + (i % 3), recipients: 1 + (i % 2) }));
    await newTransfer(w, 'other');
    const all = await w.repos.transfers.listPage({ userId: 'pager' }, null);
    assert.equal(
      all.map((t) => t.id),
      [...mine].reverse(),
    );
    assert.equal(
      (await w.repos.transfers.listPage({ userId: 'pager' }, { limit: 5, offset: 2 })).map((t) => t.id),
      all.slice(2, 7).map((t) => t.id),
    );
    assert.equal(await w.repos.transfers.listPage({ userId: 'pager' }, { limit: 5, offset: 600 }), []);
    assert.ok(
      (await w.repos.transfers.listPage('all', { limit: 1, offset: 0 }))[0].userId === 'other',
      'everyone: newest first',
    );
    assert.equal(await w.repos.transfers.listOfUser('pager'), all);
    const files = await w.repos.transfers.filesOf(mine);
    const recipients = await w.repos.transfers.recipientsOf(mine);
    for (const id of [mine[0], mine[250], mine[501], mine[519]]) {
      assert.equal(
        files.filter((f) => f.transferId === id),
        await w.repos.transfers.files(id),
      );
      assert.equal(
        recipients.filter((r) => r.transferId === id),
        await w.repos.transfers.recipients(id),
      );
    }
    assert.is(
      files.length,
      mine.reduce((n, _, i) => n + 1 + (i % 3), 0),
    );
    assert.equal(await w.repos.transfers.filesOf([]), []);
    const g = await newGuestIn(w, 'pager', { email: 'gp@x.org', token: unique('g') });
    const byGuest = await newTransfer(w, 'pager', { guestId: g.id });
    assert.equal(
      (await w.repos.transfers.listPage({ guestId: g.id }, null)).map((t) => t.id),
      [byGuest],
    );
  });

  it('ranges merge in any order; a deleted File or a closed Transfer takes no more', async ({ w }) => {
    const id = await newTransfer(w);
    const [f] = await w.repos.transfers.files(id);
    for (const [a, b] of [
      [50, 100],
      [0, 10],
      [10, 50],
      [20, 30],
    ])
      await w.uow.run((tx) => tx.transfers.recordRange(f.id, a, b));
    const after = (await w.repos.transfers.findFile(f.id))!;
    assert.equal([after.ranges, after.received], [[[0, 100]], 100]);
    assert.ok(await w.repos.transfers.markUploading(id));
    assert.not.ok(await w.repos.transfers.markUploading(id), 'only the first chunk moves it');
    await w.repos.transfers.setStatus(id, 'closed', T0, 'owner');
    assert.not.ok(await w.repos.transfers.completeFile(f.id, 1, 'x'));
    assert.is(await w.uow.run((tx) => tx.transfers.recordRange(f.id, 0, 1)), undefined);
    const other = await newTransfer(w, 'alice', { files: 2 });
    const [g, h] = await w.repos.transfers.files(other);
    await w.repos.transfers.deleteFile(g.id, T0);
    assert.is(await w.uow.run((tx) => tx.transfers.recordRange(g.id, 0, 10)), undefined);
    assert.is(await w.repos.transfers.findFile(g.id), undefined);
    assert.equal((await w.uow.run((tx) => tx.transfers.recordRange(h.id, 0, 10)))?.ranges, [[0, 10]]);
    assert.ok(await w.repos.transfers.completeFile(h.id, 7, null));
    assert.equal(
      [(await w.repos.transfers.findFile(h.id))?.complete, (await w.repos.transfers.findFile(h.id))?.crc32],
      [true, 7],
    );
  });

  it('a recipient has received everything once', async ({ w }) => {
    const id = await newTransfer(w, 'alice', { files: 2 });
    const [f, g] = await w.repos.transfers.files(id);
    const [r] = await w.repos.transfers.recipients(id);
    const all = [f.id, g.id];
    assert.not.ok(await w.uow.run((tx) => tx.transfers.markReceived(r.id, [f.id], all, T0)));
    assert.ok(await w.uow.run((tx) => tx.transfers.markReceived(r.id, [g.id], all, T0)));
    assert.not.ok(await w.uow.run((tx) => tx.transfers.markReceived(r.id, all, all, T0)), 'once');
  });

  it('a unit of work commits all or nothing, and runs its after-commit hooks only when it commits', async ({ w }) => {
    const id = await newTransfer(w);
    let hooks = 0;
    const failed = await failedUnitOfWork(w, async (tx) => {
      await tx.transfers.setStatus(id, 'available', T0);
      await tx.audit.record({
        transferId: id,
        date: T0,
        event: 'transfer_available',
        author: { type: 'User', id: 'alice', ip: null },
        target: { type: 'Transfer', id: String(id) },
      });
      tx.afterCommit(() => hooks++);
    });
    assert.is(failed, 'boom');
    assert.is((await w.repos.transfers.find(id))!.status, 'created');
    assert.equal(await w.repos.audit.forTransfer(id), []);
    assert.is(hooks, 0);
    await w.uow.run(async (tx) => {
      await tx.transfers.setStatus(id, 'available', T0 + 1);
      tx.afterCommit(() => hooks++);
    });
    assert.equal(
      [(await w.repos.transfers.find(id))!.status, (await w.repos.transfers.find(id))!.madeAvailable],
      ['available', T0 + 1],
    );
    assert.is(hooks, 1);
  });

  it('locks: one holder at a time, by name, free again once released', async ({ w }) => {
    const first = await w.locks.tryLock('purge');
    assert.ok(first);
    assert.is(await w.locks.tryLock('purge'), null);
    const other = await w.locks.tryLock('other');
    assert.ok(other);
    await other!();
    await first!();
    const again = await w.locks.tryLock('purge');
    assert.ok(again);
    await again!();
  });

  it('frequent recipients: most recent first, lower-cased; the filter is literal', async ({ w }) => {
    await w.repos.frequentRecipients.remember('fr', ['a@x.org', 'b%@x.org'], T0);
    await w.repos.frequentRecipients.remember('fr', ['C@x.org'], T0 + 1);
    assert.equal(await w.repos.frequentRecipients.list('fr', null, 10), ['c@x.org', 'b%@x.org', 'a@x.org']);
    assert.equal(await w.repos.frequentRecipients.list('fr', '%', 10), ['b%@x.org']);
    assert.equal(await w.repos.frequentRecipients.list('fr', 'A@', 10), ['a@x.org']);
  });

  it('guests: found by token with their tracking errors, expired ones listed, closed once', async ({ w }) => {
    const token = unique('g');
    const g = await newGuestIn(w, 'gus', { token, expires: T0 + 10 });
    assert.equal([g.status, g.transferCount, g.closed], ['available', 0, null]);
    await w.repos.trackingErrors.add('Guest', g.id, { type: 'bounce', date: T0, details: '550' });
    assert.equal((await w.repos.guests.findByToken(token))!.errors, [{ type: 'bounce', date: T0, details: '550' }]);
    assert.ok((await w.repos.guests.listExpired(T0 + 10)).some((x) => x.id === g.id));
    assert.equal(
      (await w.repos.guests.listOpenOf('gus')).map((x) => x.id),
      [g.id],
    );
    assert.ok(await w.repos.guests.close(g.id, T0));
    assert.not.ok(await w.repos.guests.close(g.id, T0));
    assert.equal(await w.repos.guests.listOpenOf('gus'), []);
  });

  it("purge: a Transfer's records go with it; expired and abandoned ones are found", async ({ w }) => {
    const id = await newTransfer(w, 'gone', { created: T0 - 1_000_000 });
    const r = await withAuditAndBounce(w, id, 'gone');
    assert.ok((await w.repos.purge.expiredOpenTransfers(T0)).includes(id));
    assert.ok((await w.repos.purge.abandonedTransfers(T0)).includes(id));
    await w.repos.purge.deleteTransferRecords(id);
    assert.is(await w.repos.transfers.find(id), undefined);
    assert.equal(await w.repos.transfers.filesOf([id]), []);
    assert.equal(await w.repos.audit.forTransfer(id), []);
    assert.equal(await w.repos.trackingErrors.forTarget('Recipient', r.id), []);
  });

  it('usage: declared bytes of open transfers, per user; a closed one counts no more', async ({ w }) => {
    const before = await w.repos.usage.openBytes('quser');
    const id = await newTransfer(w, 'quser', { files: 2 });
    assert.is(await w.repos.usage.openBytes('quser'), before + 201);
    assert.is((await w.repos.usage.recountOpenBytes()).get('quser'), before + 201);
    await w.repos.transfers.setStatus(id, 'closed', T0);
    assert.is(await w.repos.usage.openBytes('quser'), before);
  });

  it('usage totals: after each step of the lifecycle they equal a recount of the files, per user and in all', async ({
    w,
  }) => {
    const users = ['tot-a', 'tot-b', 'tot-c'];
    const check = async (step: string) => {
      const recount = await w.repos.usage.recountOpenBytes();
      const totals = await w.repos.usage.openBytesOf(users);
      for (const u of users) {
        assert.is(totals.get(u) ?? 0, recount.get(u) ?? 0, `${step}: ${u}'s total`);
        assert.is(await w.repos.usage.openBytes(u), recount.get(u) ?? 0, `${step}: ${u}'s quota use`);
      }
      const everyone = [...recount.values()].reduce((a, b) => a + b, 0);
      assert.is(await w.repos.usage.openBytes(null), everyone, `${step}: the instance's use`);
    };
    await check('at first');
    // Created: every file counts from the start, in the unit of work that creates the Transfer.
    const a1 = await newTransfer(w, 'tot-a', { files: 3 });
    const a2 = await newTransfer(w, 'tot-a', { files: 2 });
    const b1 = await newTransfer(w, 'tot-b', { files: 4 });
    const c1 = await newTransfer(w, 'tot-c', { files: 1 });
    await check('created');
    assert.is(await w.repos.usage.openBytes('tot-a'), 303 + 201);
    // Uploaded and completed: the declared sizes were counted already; nothing moves.
    const [f1, f2] = await w.repos.transfers.files(a1);
    await w.repos.transfers.markUploading(a1);
    await w.uow.run((tx) => tx.transfers.recordRange(f1.id, 0, 50));
    await w.uow.run((tx) => tx.transfers.recordRange(f1.id, 50, 100));
    await w.repos.transfers.completeFile(f1.id, 1, null);
    await w.repos.transfers.setStatus(a1, 'available', T0);
    await check('uploaded, completed, available');
    // A file deleted from an open Transfer counts no more; one deleted from a closed Transfer changes nothing.
    await w.repos.transfers.deleteFile(f2.id, T0);
    await check('a file deleted');
    assert.is(await w.repos.usage.openBytes('tot-a'), 303 + 201 - 101);
    // Closed by its owner, expired, and a rolled-back close that must leave the totals as they were.
    await w.repos.transfers.setStatus(a2, 'closed', T0, 'closed by owner');
    await check('closed');
    await w.uow
      .run(async (tx) => {
        await tx.transfers.setStatus(b1, 'closed', T0, 'expired');
        throw new Error('rolled back');
      })
      .catch(() => {});
    await check('a close rolled back');
    await w.uow.run((tx) => tx.transfers.setStatus(b1, 'closed', T0, 'expired'));
    await check('expired');
    const [g] = await w.repos.transfers.files(b1);
    await w.repos.transfers.deleteFile(g.id, T0);
    await check('a file of a closed Transfer deleted');
    // Purged: a closed Transfer's records, then an open one's (an abandoned upload) with a deleted file in it.
    await w.repos.purge.deleteTransferRecords(b1);
    await check('a closed Transfer purged');
    const [h] = await w.repos.transfers.files(a1);
    await w.repos.transfers.deleteFile(h.id, T0);
    await w.repos.purge.deleteTransferRecords(a1);
    await check('an open Transfer purged');
    assert.is(await w.repos.usage.openBytes('tot-a'), 0);
    assert.is(await w.repos.usage.openBytes('tot-c'), 100);
    await w.repos.purge.deleteTransferRecords(c1);
    await check('all purged');
  });

  it('pages by key: the page after the last id seen, newest first, none skipped or repeated while rows come and go', async ({
    w,
  }) => {
    const ids: number[] = [];
    for (let i = 0; i < 23; i++) ids.push(await newTransfer(w, 'keyed'));
    const seen: number[] = [];
    let after: number | null = null;
    let added = 0;
    for (let round = 0; round < 20; round++) {
      const page = await w.repos.transfers.listPage(
        { userId: 'keyed' },
        { limit: 5, offset: 0, after: after === null ? null : String(after) },
      );
      if (page.length === 0) break;
      seen.push(...page.map((t) => t.id));
      after = page[page.length - 1].id;
      // Meanwhile a new Transfer (newer than every page: not in the walk) and one already seen removed.
      if (added++ < 3) {
        await newTransfer(w, 'keyed');
        await w.repos.purge.deleteTransferRecords(seen[0]);
      }
    }
    assert.equal(seen, [...ids].reverse(), 'every Transfer once, in order');
    const everyone = await w.repos.transfers.listPage('all', { limit: 3, offset: 0, after: String(ids[10]) });
    assert.equal(
      everyone.map((t) => t.id),
      [ids[9], ids[8], ids[7]],
    );
  });
});
