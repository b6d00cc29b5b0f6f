import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { openDatabase, Database } from '../../src/db/database';
import { tempDir } from '../helpers/server';
import { newGuestIn, failedUnitOfWork, withAuditAndBounce } from '../helpers/repository-worlds';
import { freshPostgresDatabase } from '../helpers/system/postgres';

// The repository contract: what the domain relies on from its ports, checked against both adapters — SQLite
// (better-sqlite3) and a real PostgreSQL server the tests start. The same cases, the same answers.

const msg = (to: string) => ({ from: 'ferry@x.org', to, subject: 's', text: 't', html: 'h', lang: 'en' });
const T0 = 1_900_000_000;

for (const dialect of ['sqlite', 'postgres'] as const) {
  const it = suite<{ db: Database; dir: string }>(`repositories on ${dialect}`);

  it.before(async (ctx) => {
    ctx.dir = tempDir('ferry-contract-');
    ctx.db = await openDatabase({
      dataDir: ctx.dir,
      url: dialect === 'postgres' ? await freshPostgresDatabase('ferry_contract') : null,
    });
  });
  it.after(async (ctx) => {
    await ctx.db.close();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  });

  const newTransfer = (db: Database, user = 'alice') =>
    db.repos.transfers.create(
      {
        userId: user,
        userEmail: `${user}@x.org`,
        guestId: null,
        subject: 'S',
        message: null,
        options: ['get_a_link'],
        lang: null,
        created: T0,
        expires: T0 + 86400,
        roundtripToken: 'rt'.padEnd(32, '0'),
      },
      [
        {
          uid: `${user}${Math.random().toString(16).slice(2)}`.padEnd(32, '0').slice(0, 32),
          name: 'f',
          size: 100,
          mimeType: null,
          cid: 'c1',
        },
      ],
      [
        {
          email: `r@${user}.org`,
          token: `tok${Math.random().toString(16).slice(2)}`.padEnd(32, '0').slice(0, 32),
          lang: 'de',
        },
      ],
    );

  it('transfers: created with files and recipients, read back as stored; ids grow', async ({ db }) => {
    const id = await newTransfer(db);
    const t = (await db.repos.transfers.find(id))!;
    assert.equal(
      [t.userId, t.status, t.options, t.expires, t.guestId],
      ['alice', 'created', ['get_a_link'], T0 + 86400, null],
    );
    const [f] = await db.repos.transfers.files(id);
    assert.equal([f.name, f.size, f.cid, f.received, f.ranges, f.complete], ['f', 100, 'c1', 0, [], false]);
    const [r] = await db.repos.transfers.recipients(id);
    assert.equal((await db.repos.transfers.recipientByToken(r.token))?.id, r.id);
    assert.ok((await newTransfer(db)) > id);
    assert.is(await db.repos.transfers.find(999_999), undefined);
  });

  it('background completions: asked for once, claimed by one caller at a time until the claim lapses, cleared by completion', async ({
    db,
  }) => {
    const id = await newTransfer(db);
    const [f] = await db.repos.transfers.files(id);
    assert.ok(await db.repos.transfers.requestAssembly(f.id, '{"id":"alice"}'));
    assert.ok((await db.repos.transfers.findFile(f.id))!.assembling);
    const claims = await Promise.all([0, 1, 2].map(() => db.repos.transfers.claimAssembly(T0, T0 + 30)));
    assert.is(claims.filter(Boolean).length, 1, 'one of three callers at once has it');
    const claim = claims.find(Boolean)!;
    assert.equal([claim.file.id, claim.by], [f.id, '{"id":"alice"}']);
    assert.is(await db.repos.transfers.claimAssembly(T0 + 29, T0 + 59), undefined, 'held until it lapses');
    await db.repos.transfers.renewAssembly(f.id, T0 + 60);
    assert.is(await db.repos.transfers.claimAssembly(T0 + 45, T0 + 75), undefined, 'renewed');
    assert.is((await db.repos.transfers.claimAssembly(T0 + 61, T0 + 91))?.file.id, f.id, 'taken over once lapsed');
    await db.repos.transfers.releaseAssembly(f.id);
    assert.is((await db.repos.transfers.claimAssembly(T0 + 62, T0 + 92))?.file.id, f.id, 'released: free at once');
    await db.repos.transfers.requestCompletion(id, '{"id":"bob"}');
    await db.repos.transfers.requestCompletion(id, '{"id":"carol"}');
    assert.equal(
      (await db.repos.transfers.completionsDue()).filter((d) => d.transferId === id),
      [{ transferId: id, by: '{"id":"bob"}' }],
      'the first request stands',
    );
    assert.ok((await db.repos.transfers.find(id))!.completing);
    assert.ok(await db.repos.transfers.completeFile(f.id, 1, null));
    const done = (await db.repos.transfers.findFile(f.id))!;
    assert.equal([done.complete, done.assembling], [true, false]);
    assert.is(
      await db.repos.transfers.claimAssembly(T0 + 200, T0 + 230),
      undefined,
      'a complete file is no longer waiting',
    );
    assert.not.ok(await db.repos.transfers.requestAssembly(f.id, '{"id":"alice"}'), 'nor asked for again');
    await db.repos.transfers.setStatus(id, 'available', T0);
    assert.not.ok(
      (await db.repos.transfers.completionsDue()).some((d) => d.transferId === id),
      'available: no longer due',
    );
  });

  it('ranges merge in any order, concurrently, and completion is refused once the Transfer is closed', async ({
    db,
  }) => {
    const id = await newTransfer(db);
    const [f] = await db.repos.transfers.files(id);
    const sent = [
      [50, 100],
      [0, 10],
      [10, 50],
      [20, 30],
    ];
    const answers = await Promise.all(sent.map(([a, b]) => db.uow.run((tx) => tx.transfers.recordRange(f.id, a, b))));
    const after = (await db.repos.transfers.findFile(f.id))!;
    assert.equal([after.ranges, after.received], [[[0, 100]], 100]);
    // Each answer is the File as its own range left it (covering that range), and one is the File as stored.
    answers.forEach((a, i) => {
      assert.equal([a?.id, a?.uid, a?.size, a?.complete], [f.id, f.uid, 100, false]);
      assert.ok(
        a!.ranges.some(([s, e]) => s <= sent[i][0] && e >= sent[i][1]),
        `answer ${i} covers its range`,
      );
    });
    assert.equal(
      answers.find((a) => a!.received === 100),
      after,
    );
    assert.ok(await db.repos.transfers.markUploading(id));
    assert.not.ok(await db.repos.transfers.markUploading(id), 'only the first chunk moves it');
    await db.repos.transfers.setStatus(id, 'closed', T0, 'owner');
    assert.not.ok(await db.repos.transfers.completeFile(f.id, 1, 'x'));
    assert.is(await db.uow.run((tx) => tx.transfers.recordRange(f.id, 0, 1)), undefined);
  });

  it('a deleted File takes no more ranges and is no longer found; its neighbour is untouched', async ({ db }) => {
    const id = await newTransfer(db);
    const [f] = await db.repos.transfers.files(id);
    await db.repos.transfers.deleteFile(f.id, T0);
    assert.is(await db.uow.run((tx) => tx.transfers.recordRange(f.id, 0, 10)), undefined);
    assert.is(await db.repos.transfers.findFile(f.id), undefined);
    const other = await newTransfer(db);
    const [g] = await db.repos.transfers.files(other);
    assert.equal((await db.uow.run((tx) => tx.transfers.recordRange(g.id, 0, 10)))?.ranges, [[0, 10]]);
    assert.equal((await db.repos.transfers.findFile(g.id))?.received, 10);
  });

  it('a recipient has received everything once: two downloads ending at once notify once', async ({ db }) => {
    const id = await newTransfer(db);
    const [f] = await db.repos.transfers.files(id);
    const [r] = await db.repos.transfers.recipients(id);
    const ends = await Promise.all(
      [1, 2, 3].map(() => db.uow.run((tx) => tx.transfers.markReceived(r.id, [f.id], [f.id], T0))),
    );
    assert.equal(ends.filter(Boolean).length, 1);
  });

  it('a unit of work commits all or nothing, and runs its after-commit hooks only when it commits', async ({ db }) => {
    const id = await newTransfer(db);
    let hooks = 0;
    const failed = await failedUnitOfWork(db, async (tx) => {
      await tx.transfers.setStatus(id, 'available', T0);
      await tx.mailQueue.enqueue(msg('rolled@x.org'), T0, null);
      tx.afterCommit(() => hooks++);
    });
    assert.is(failed, 'boom');
    assert.is((await db.repos.transfers.find(id))!.status, 'created');
    assert.equal(await db.query(`SELECT id FROM mail_queue WHERE to_addr = 'rolled@x.org'`), []);
    assert.is(hooks, 0);
    await db.uow.run(async (tx) => {
      await tx.transfers.setStatus(id, 'available', T0);
      await tx.mailQueue.enqueue(msg('kept@x.org'), T0, null);
      tx.afterCommit(() => hooks++);
    });
    assert.is((await db.repos.transfers.find(id))!.status, 'available');
    assert.is((await db.query(`SELECT id FROM mail_queue WHERE to_addr = 'kept@x.org'`)).length, 1);
    assert.is(hooks, 1);
  });

  it('mail claims: workers claiming at once take disjoint messages and, together, all of them', async ({ db }) => {
    await db.query(`UPDATE mail_queue SET status = 'sent'`);
    for (let i = 0; i < 30; i++) await db.repos.mailQueue.enqueue(msg(`c${i}@x.org`), T0, null);
    const batches = await Promise.all([1, 2, 3, 4].map(() => db.repos.mailQueue.claimDue(T0, T0 + 600, 10)));
    const ids = batches.flat().map((m) => m.id);
    assert.is(new Set(ids).size, ids.length, 'no message claimed twice');
    assert.is(ids.length, 30);
    assert.equal(
      await db.repos.mailQueue.claimDue(T0 + 1, T0 + 600, 10),
      [],
      'claimed messages wait for their claim to lapse',
    );
    assert.is((await db.repos.mailQueue.claimDue(T0 + 601, T0 + 1200, 50)).length, 30);
    assert.is(await db.repos.mailQueue.nextDue(T0), 1200);
  });

  it('mail delivery: the latest mail per target is its state; only a deferred or bounced one is queued again, once', async ({
    db,
  }) => {
    const q = db.repos.mailQueue;
    const sent = await q.enqueue(msg('a@x.org'), T0, { type: 'Recipient', id: 901 });
    await q.markSent(sent, T0 + 5);
    const deferred = await q.enqueue(msg('b@x.org'), T0, { type: 'Recipient', id: 902 });
    await q.markRetry(deferred, T0 + 30, '450 busy');
    const old = await q.enqueue(msg('c@x.org'), T0, { type: 'Recipient', id: 903 });
    await q.markFailed(old, '550 unknown');
    const bounced = await q.enqueue(msg('c@x.org'), T0 + 1, { type: 'Recipient', id: 903 });
    await q.markFailed(bounced, '550 still unknown');
    await q.enqueue(msg('d@x.org'), T0, { type: 'Guest', id: 901 }); // another kind of target, same id
    const states = await q.deliveryFor('Recipient', [901, 902, 903, 904]);
    assert.equal([...states.keys()].sort(), [901, 902, 903]);
    assert.equal(states.get(901), { state: 'sent', date: T0 + 5, reason: null, attempts: 1, nextAttempt: null });
    assert.equal(states.get(902), {
      state: 'deferred',
      date: T0,
      reason: '450 busy',
      attempts: 1,
      nextAttempt: T0 + 30,
    });
    assert.equal(states.get(903), {
      state: 'bounced',
      date: T0 + 1,
      reason: '550 still unknown',
      attempts: 1,
      nextAttempt: null,
    });
    assert.is((await q.deliveryFor('Guest', [901])).get(901)?.state, 'queued');

    assert.not.ok(await q.requeueUndelivered('Recipient', 901, T0 + 100), 'a sent mail is not sent again');
    assert.not.ok(await q.requeueUndelivered('Recipient', 904, T0 + 100), 'no mail, nothing to send again');
    // Two owners pressing at once: the row is re-armed once.
    const both = await Promise.all(
      [1, 2].map(() => db.uow.run((tx) => tx.mailQueue.requeueUndelivered('Recipient', 903, T0 + 100))),
    );
    assert.equal(both.filter(Boolean).length, 1);
    assert.equal((await q.deliveryFor('Recipient', [903])).get(903), {
      state: 'queued',
      date: T0 + 100,
      reason: null,
      attempts: 0,
      nextAttempt: null,
    });
    const [row] = await db.query<{ id: number | string; status: string }>(
      `SELECT id, status FROM mail_queue WHERE id = ?`,
      [old],
    );
    assert.is(row.status, 'failed', 'only the latest mail is queued again');
    assert.ok(await q.requeueUndelivered('Recipient', 902, T0 + 100));
    const [again] = await db.query<{ next_attempt: number | string }>(
      `SELECT next_attempt FROM mail_queue WHERE id = ?`,
      [deferred],
    );
    assert.is(Number(again.next_attempt), T0 + 100, 'a deferred mail is due now, not at its backoff');
  });

  it('used signatures: a replay is refused until its window passes, also when sent at once', async ({ db }) => {
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => db.repos.signatures.use('a'.repeat(40), T0 + 16, T0)));
    assert.equal(results.filter(Boolean).length, 1);
    assert.ok(await db.repos.signatures.use('a'.repeat(40), T0 + 40, T0 + 17), 'past its expiry it is no replay');
  });

  it('locks: one holder at a time, free again once released', async ({ db }) => {
    const first = await db.locks.tryLock('purge');
    assert.ok(first);
    assert.is(await db.locks.tryLock('purge'), null);
    const other = await db.locks.tryLock('other');
    assert.ok(other, 'locks are by name');
    await other!();
    await first!();
    const again = await db.locks.tryLock('purge');
    assert.ok(again);
    await again!();
  });

  it('users: created once when seen at once, e-mails replaced as a list, admins', async ({ db }) => {
    const seen = await Promise.all(
      [1, 2, 3].map(() => db.repos.users.upsertSeen('zoe', ['Zoe@X.org', 'z2@x.org'], T0)),
    );
    assert.equal(seen[0], ['zoe@x.org', 'z2@x.org']);
    assert.equal(await db.repos.users.listIds().then((l) => l.filter((u) => u === 'zoe')), ['zoe']);
    await db.repos.users.setEmails('zoe', ['new@x.org']);
    assert.equal(await db.repos.users.emails('zoe'), ['new@x.org']);
    assert.ok(await db.repos.users.addAdmin('zoe', T0));
    assert.not.ok(await db.repos.users.addAdmin('zoe', T0), 'already one');
    assert.ok(await db.repos.users.isDbAdmin('zoe'));
    assert.ok(await db.repos.users.removeAdmin('zoe'));
  });

  it('frequent recipients: most recent first, within one second too; the filter is literal', async ({ db }) => {
    await db.repos.frequentRecipients.remember('fr', ['a@x.org', 'b%@x.org'], T0);
    await db.repos.frequentRecipients.remember('fr', ['C@x.org'], T0);
    assert.equal(await db.repos.frequentRecipients.list('fr', null, 10), ['c@x.org', 'b%@x.org', 'a@x.org']);
    assert.equal(await db.repos.frequentRecipients.list('fr', '%', 10), ['b%@x.org'], '% is no wildcard');
    assert.equal(await db.repos.frequentRecipients.list('fr', 'A@', 10), ['a@x.org']);
  });

  it('guests: closed once; tracking errors attached; login failures counted in their window', async ({ db }) => {
    const g = await newGuestIn(db, 'alice', { token: 'g'.repeat(40), expires: T0 + 10 });
    await db.repos.trackingErrors.add('Guest', g.id, { type: 'bounce', date: T0, details: '550' });
    assert.equal((await db.repos.guests.findByToken('g'.repeat(40)))!.errors, [
      { type: 'bounce', date: T0, details: '550' },
    ]);
    assert.equal(
      (await db.repos.guests.listExpired(T0 + 10)).map((x) => x.id),
      [g.id],
    );
    const closes = await Promise.all([1, 2].map(() => db.repos.guests.close(g.id, T0)));
    assert.equal(closes.filter(Boolean).length, 1);
    const a = await db.repos.loginFailures.add('user:x', T0);
    await db.repos.loginFailures.add('user:x', T0 + 5);
    assert.equal(await db.repos.loginFailures.window('user:x', T0 - 1), { count: 2, oldest: T0 });
    await db.repos.loginFailures.remove(a);
    assert.equal(await db.repos.loginFailures.window('user:x', T0 - 1), { count: 1, oldest: T0 + 5 });
  });

  it("purge: a Transfer's records go with it (files, recipients, audit log, their tracking errors)", async ({ db }) => {
    const id = await newTransfer(db, 'gone');
    const r = await withAuditAndBounce(db, id, 'gone');
    await db.repos.purge.deleteTransferRecords(id);
    assert.is(await db.repos.transfers.find(id), undefined);
    assert.equal(await db.repos.audit.forTransfer(id), []);
    assert.equal(await db.repos.trackingErrors.forTarget('Recipient', r.id), []);
    assert.equal(await db.query('SELECT id FROM files WHERE transfer_id = ?', [id]), []);
  });

  it.run();
}
