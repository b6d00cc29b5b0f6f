import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { migrations } from '../../src/db/migrations';
import { migratePostgres } from '../../src/db/postgres';
import { openSqliteFile } from '../../src/db/sqlite';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { tempDir } from '../helpers/server';

// Upgrading keeps what is stored: a database made by an older ferry, with rows in it, is migrated to the
// current schema on SQLite and on PostgreSQL, and the rows are still there.

const upTo = (v: number) => migrations.filter((m) => m.version <= v);
const latest = Math.max(...migrations.map((m) => m.version));

/** A transfer, a file and two recorded chunks, written in the words of schema 13. */
const SEED = [
  `INSERT INTO transfers (id, user_id, user_email, status, created, expires) VALUES (7, 'alice', 'alice@example.org', 'uploading', 1, 2)`,
  `INSERT INTO files (id, transfer_id, uid, name, size, created) VALUES (70, 7, 'f00dbabef00dbabef00dbabef00dbabe', 'plan.pdf', 10, 1)`,
  `INSERT INTO file_pieces (file_id, start_at, end_at, crc32, receipt) VALUES (70, 0, 5, 123456, 'part-1')`,
  `INSERT INTO file_pieces (file_id, start_at, end_at, crc32, receipt) VALUES (70, 5, 10, 4294967295, '')`,
];
const PIECES = [
  { file_id: 70, start_at: 0, end_at: 5, crc32: 123456, receipt: 'part-1' },
  { file_id: 70, start_at: 5, end_at: 10, crc32: 4294967295, receipt: '' },
];

test('SQLite, 13 → latest: recorded chunks keep their CRC-32 and receipt, a chunk without CRC-32 can be recorded, and pieces still go with their file', () => {
  const file = path.join(tempDir(), 'ferry.db');
  const old = openSqliteFile(file, upTo(13));
  for (const s of SEED) old.exec(s);
  old.close();
  const db = openSqliteFile(file);
  assert.is(db.pragma('user_version', { simple: true }), latest);
  assert.equal(db.prepare('SELECT * FROM file_pieces ORDER BY start_at').all(), PIECES);
  db.prepare('INSERT INTO file_pieces (file_id, start_at, end_at, crc32, receipt) VALUES (70, 0, 10, NULL, ?)').run('');
  assert.is(
    (db.prepare('SELECT crc32 FROM file_pieces WHERE end_at - start_at = 10').get() as { crc32: unknown }).crc32,
    null,
  );
  db.exec('DELETE FROM files WHERE id = 70');
  assert.is(
    (db.prepare('SELECT COUNT(*) AS n FROM file_pieces').get() as { n: number }).n,
    0,
    'ON DELETE CASCADE kept',
  );
  db.close();
});

test('PostgreSQL, 13 → latest: the same', async () => {
  const pool = new pg.Pool({ connectionString: await freshPostgresDatabase('migrate') });
  try {
    await migratePostgres(pool, upTo(13));
    for (const s of SEED) await pool.query(s);
    await migratePostgres(pool);
    assert.is(Number((await pool.query('SELECT MAX(version) AS v FROM ferry_schema')).rows[0].v), latest);
    const rows = (await pool.query('SELECT * FROM file_pieces ORDER BY start_at')).rows.map((r) => ({
      ...r,
      file_id: Number(r.file_id),
      start_at: Number(r.start_at),
      end_at: Number(r.end_at),
      crc32: Number(r.crc32),
    }));
    assert.equal(rows, PIECES);
    await pool.query(
      `INSERT INTO file_pieces (file_id, start_at, end_at, crc32, receipt) VALUES (70, 0, 10, NULL, '')`,
    );
    await pool.query('DELETE FROM files WHERE id = 70');
    assert.is(Number((await pool.query('SELECT COUNT(*) AS n FROM file_pieces')).rows[0].n), 0);
  } finally {
    await pool.end();
  }
});

test.run();
