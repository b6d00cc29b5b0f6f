import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { sqliteFile, sqliteWalFlush } from '../../src/db/sqlite';
import { tempDir } from '../helpers/temp-dir';

/** What this process holds open of `file`: the live file, or a removed one ("(deleted)"). */
function heldOf(file: string): string[] {
  const out: string[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    const target = (() => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })();
    if (target === file) out.push('live');
    else if (target === `${file} (deleted)`) out.push('deleted');
  }
  return out;
}

test('the -wal flush keeps one descriptor between flushes, follows a file made anew, and lets go when there is none or on close', async () => {
  const dir = tempDir('ferry-wal-');
  const wal = `${sqliteFile(dir)}-wal`;
  const w = sqliteWalFlush(dir);
  try {
    await w.flush(); // no -wal file yet: every commit is in the database file
    assert.equal(heldOf(wal), []);

    fs.writeFileSync(wal, 'frames');
    for (let i = 0; i < 3; i++) await w.flush();
    assert.equal(heldOf(wal), ['live'], 'one descriptor, kept');

    // Removed and made again (SQLite does so only when its last connection closes): the new file is flushed,
    // and the removed one is no longer held.
    fs.rmSync(wal);
    fs.writeFileSync(wal, 'new frames');
    await w.flush();
    assert.equal(heldOf(wal), ['live']);

    fs.rmSync(wal);
    await w.flush();
    assert.equal(heldOf(wal), [], 'nothing held once the file is gone');

    fs.writeFileSync(wal, 'frames');
    await w.flush();
    await w.close();
    assert.equal(heldOf(wal), [], 'closed with the database');
  } finally {
    await w.close();
  }
});

test.run();
