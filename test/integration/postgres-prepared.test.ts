import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../../src/db/database';
import { newTransferIn } from '../helpers/repository-worlds';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { tempDir } from '../helpers/temp-dir';

// The statements of a list page (a page of Transfers is one: src/db/transfer-extras-repo.ts) that PostgreSQL keeps
// prepared on each connection (src/db/context.ts, preparedOnPostgres): during a rolling upgrade a newer node's
// migration adds columns to the tables they read while this node's connections hold them prepared
// (docs/deploying.md). A prepared `SELECT *` then fails with "cached plan must not change result type"; the prepared
// reads name their columns, and go on answering.

test("prepared list reads go on answering after another node's migration adds columns to their tables", async () => {
  const url = await freshPostgresDatabase('ferry_prepared');
  const w = await openDatabase({ dataDir: tempDir('ferry-prepared-'), url });
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    const ids = [
      await newTransferIn(w, 'pp', { files: 2, recipients: 2 }),
      await newTransferIn(w, 'pp', { files: 1, recipients: 1 }),
    ];
    // Many at once: each connection of the pool prepares the statements.
    const reads = () =>
      Promise.all(
        Array.from({ length: 12 }, () =>
          Promise.all([
            w.repos.transfers.filesOf(ids),
            w.repos.transfers.recipientsOf(ids),
            w.repos.transferExtras.of(ids),
            w.repos.transferExtras.withRowsOf(ids),
            w.repos.transferExtras.pageWithRows({ userId: 'pp' }, { limit: 5, offset: 0, after: null }),
            w.repos.transferExtras.pageWithRows('all', { limit: 5, offset: 0, after: String(ids[1] + 1) }),
          ]),
        ),
      );
    const before = (await reads())[0];
    assert.is(before[0].length, 3);
    assert.is(before[1].length, 3);
    assert.is(before[3].files.length, 3);
    assert.equal(
      before[4].transfers.map((t) => t.id),
      [ids[1], ids[0]],
    );
    assert.is(before[5].recipients.length, 3);
    for (const table of ['transfers', 'files', 'recipients', 'mail_queue', 'transfer_sharing', 'tracking_errors'])
      await other.query(`ALTER TABLE ${table} ADD COLUMN from_a_later_release TEXT`);
    for (const after of await reads()) assert.equal(after, before);
  } finally {
    await other.end();
    await w.close();
  }
});

test.run();
