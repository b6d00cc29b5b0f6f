import * as assert from 'uvu/assert';
import type { FileRecord, Guest, Recipient, Transfer } from '../../src/domain/model';
import { forEachWorld, newTransferIn } from '../helpers/repository-worlds';
import { fileRecord, recipientRecord, transferRecord } from '../helpers/domain-factories';

// The repository contract of `ferry import filesender` (docs/moving-from-filesender.md), run on the in-memory
// fake of test/fakes/memory-imports.ts as on SQLite and PostgreSQL: records kept under the ids they had in the
// source, marked as imported, and new records numbered past them.

const T0 = 1_900_000_000;
const SOURCE = 'filesender';
const hex = (prefix: string) => `${prefix}${'0'.repeat(32)}`.slice(0, 32);

const transfer = (id: number, guestId: number | null = null): Transfer =>
  transferRecord({
    id,
    userId: 'old-user',
    userEmail: 'old@x.org',
    guestId,
    subject: 'from FileSender',
    options: ['get_a_link'],
    status: 'uploading',
    lang: 'en',
    created: T0,
    expires: T0 + 86400,
    madeAvailable: null,
  });
const file = (id: number, transferId: number): FileRecord =>
  fileRecord({
    id,
    transferId,
    uid: hex(`uid${id}x`),
    name: `f${id}.bin`,
    size: 10,
    received: 0,
    ranges: [],
    complete: false,
    created: T0,
  });
const recipient = (id: number, transferId: number): Recipient =>
  recipientRecord({ id, transferId, email: `r${id}@x.org`, token: hex(`tok${id}x`), created: T0 });
const guest = (id: number): Guest => ({
  id,
  userId: 'old-user',
  userEmail: 'old@x.org',
  email: `g${id}@x.org`,
  token: hex(`guest${id}x`),
  subject: null,
  message: null,
  options: [],
  transferOptions: [],
  status: 'available',
  transferCount: 0,
  lang: null,
  created: T0,
  expires: T0 + 86400,
  lastActivity: null,
  closed: null,
  errors: [],
});

forEachWorld('imports: the repository', (it) => {
  it('records kept under their own ids, marked imported; what is taken found; new ids past them', async ({ w }) => {
    const before = await w.repos.imports.otherRecords();
    const mine = await newTransferIn(w, 'im-local');
    assert.equal(await w.repos.imports.otherRecords(), { ...before, transfers: before.transfers + 1 });
    const [myFile] = await w.repos.transfers.files(mine);
    const [myRecipient] = await w.repos.transfers.recipients(mine);

    await w.uow.run((tx) => tx.imports.insertGuest(guest(70_001), SOURCE, T0));
    await w.uow.run((tx) =>
      tx.imports.insertTransfer(
        transfer(70_010, 70_001),
        [file(70_011, 70_010), file(70_012, 70_010)],
        [recipient(70_013, 70_010)],
        SOURCE,
        T0,
      ),
    );
    assert.equal(await w.repos.imports.otherRecords(), { ...before, transfers: before.transfers + 1 });
    assert.equal([...(await w.repos.imports.imported('transfer'))], [70_010]);
    assert.equal([...(await w.repos.imports.imported('guest'))], [70_001]);

    assert.equal(
      (await w.repos.imports.taken('transfer', [70_010, 70_099, mine])).sort((a, b) => a - b),
      [70_010, mine].sort((a, b) => a - b),
    );
    assert.equal((await w.repos.imports.taken('file', [70_011, 70_012, 70_098])).sort(), [70_011, 70_012]);
    assert.equal(await w.repos.imports.taken('recipient', [70_013, 70_097]), [70_013]);
    assert.equal(await w.repos.imports.taken('guest', [70_001, 70_002]), [70_001]);
    assert.equal(await w.repos.imports.tokensTaken('recipient', [myRecipient.token, hex('nobody')]), [
      myRecipient.token,
    ]);
    assert.equal(await w.repos.imports.tokensTaken('guest', [guest(70_001).token]), [guest(70_001).token]);
    assert.equal(
      await w.repos.imports.uidsTaken([myFile.uid, file(70_011, 0).uid, hex('none')]).then((u) => u.sort()),
      [myFile.uid, file(70_011, 0).uid].sort(),
    );

    // The imported Transfer is readable as any other, its files with nothing received yet.
    const t = await w.repos.transfers.find(70_010);
    assert.equal([t?.guestId, t?.subject, t?.status], [70_001, 'from FileSender', 'uploading']);
    const files = await w.repos.transfers.files(70_010);
    assert.equal(
      files.map((f) => [f.id, f.name, f.received, f.complete]),
      [
        [70_011, 'f70011.bin', 0, false],
        [70_012, 'f70012.bin', 0, false],
      ],
    );
    assert.is((await w.repos.transfers.recipientByToken(recipient(70_013, 0).token))?.id, 70_013);
    assert.is((await w.repos.guests.find(70_001))?.email, 'g70001@x.org');

    await w.repos.imports.setImportedStatus(70_010, 'available', T0 + 5);
    assert.equal(
      [(await w.repos.transfers.find(70_010))?.status, (await w.repos.transfers.find(70_010))?.madeAvailable],
      ['available', T0 + 5],
    );
    // Received whole, recorded once however often it is said.
    await w.repos.imports.recordReceived([
      { recipientId: 70_013, fileId: 70_011, date: T0 },
      { recipientId: 70_013, fileId: 70_012, date: T0 },
    ]);
    await w.repos.imports.recordReceived([{ recipientId: 70_013, fileId: 70_011, date: T0 + 1 }]);
    assert.equal([...(await w.repos.sharing.recipientsWithAll(70_010, [70_011, 70_012]))], [70_013]);

    // The same id twice is refused (an import asks taken() first); the record stays marked once.
    const again = await w.uow
      .run((tx) => tx.imports.insertGuest(guest(70_001), SOURCE, T0))
      .then(
        () => 'inserted',
        () => 'refused',
      );
    assert.is(again, 'refused', 'one guest under one id');
    assert.equal([...(await w.repos.imports.imported('guest'))], [70_001]);

    // New records are numbered past the imported ids and past the floor of ids the source gave out.
    await w.repos.imports.moveSequences({ transfers: 80_000, files: 0, recipients: 0, guests: 0 });
    const next = await newTransferIn(w, 'im-after');
    assert.ok(next > 80_000, `${next}`);
    const [nextFile] = await w.repos.transfers.files(next);
    assert.ok(nextFile.id > 70_012, `${nextFile.id}`);
  });

  it('an import that fails in its unit of work leaves nothing behind', async ({ w }) => {
    await w.uow
      .run(async (tx) => {
        await tx.imports.insertTransfer(transfer(71_010), [file(71_011, 71_010)], [], SOURCE, T0);
        throw new Error('rolled back');
      })
      .catch(() => {});
    assert.is(await w.repos.transfers.find(71_010), undefined);
    assert.equal(await w.repos.imports.taken('file', [71_011]), []);
    assert.not.ok((await w.repos.imports.imported('transfer')).has(71_010));
  });
});
