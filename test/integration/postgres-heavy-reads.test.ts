import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../../src/db/database';
import { newTransferIn } from '../helpers/repository-worlds';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { tempDir } from '../helpers/temp-dir';

// A node sends at most two pages of Transfers to PostgreSQL at once (src/db/postgres.ts, heavyReadsGate;
// docs/architecture.md, "Lists and pages"): on a database whose cores the node shares, eight of them at once took
// the cores from the node's one thread and doubled the slowest pages. The others wait in the node, and answer;
// pages past an offset, whose statements read every row they skip, go at once.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('at most two list statements are on the database at once; the others wait their turn and all answer', async () => {
  const url = await freshPostgresDatabase('ferry_heavy_reads');
  const w = await openDatabase({ dataDir: tempDir('ferry-heavy-reads-'), url });
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  // Every read the test starts, settled before the database closes, whatever an assertion did.
  const started: Promise<unknown>[] = [];
  try {
    const id = await newTransferIn(w, 'hr', { files: 2, recipients: 2 });
    // Every list statement that reaches the server now waits on this lock, where pg_stat_activity shows it.
    await other.query('BEGIN');
    await other.query('LOCK TABLE transfers IN ACCESS EXCLUSIVE MODE');
    const pages = Array.from({ length: 6 }, (_, i) =>
      i % 2
        ? w.repos.transferExtras.pageWithRows({ userId: 'hr' }, { limit: 5, offset: 0, after: null })
        : w.repos.transferExtras.pageWithRows('all', { limit: 5, offset: 0, after: null }),
    );
    const settled = Promise.allSettled(pages);
    started.push(settled);
    // Within a transaction pg_stat_activity is read once and kept: each look clears that snapshot first.
    const onTheServer = async () => {
      await other.query('SELECT pg_stat_clear_snapshot()');
      const r = await other.query<{ n: string }>(
        `SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = 'ferry' AND wait_event_type = 'Lock'`,
      );
      return Number(r.rows[0].n);
    };
    let n = 0;
    for (let i = 0; i < 150 && n < 2; i++) {
      await sleep(20);
      n = await onTheServer();
    }
    assert.is(n, 2, 'two statements reach the server');
    await sleep(300);
    assert.is(await onTheServer(), 2, 'the other four wait in the node');
    assert.is(w.heavyReadsWaiting(), 4, 'and the metrics say so');
    // A page past an offset reads the rows it skips, and takes no turn: it would hold one for as long.
    const deep = w.repos.transferExtras.pageWithRows('all', { limit: 5, offset: 1, after: null });
    started.push(deep.catch(() => {}));
    for (let i = 0; i < 150 && n < 3; i++) {
      await sleep(20);
      n = await onTheServer();
    }
    assert.is(n, 3, 'a page by offset goes to the server beside the two');
    await other.query('COMMIT');
    assert.equal((await deep).transfers, [], 'the one Transfer is before the offset');
    for (const page of await settled) {
      assert.is(page.status, 'fulfilled');
      if (page.status === 'fulfilled') {
        assert.equal(
          page.value.transfers.map((t) => t.id),
          [id],
        );
        assert.is(page.value.files.length, 2);
        assert.is(page.value.recipients.length, 2);
      }
    }
    assert.is(w.heavyReadsWaiting(), 0);
  } finally {
    await other.end();
    await Promise.all(started);
    await w.close();
  }
});

test.run();
