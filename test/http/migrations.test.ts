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

/**
 * Accounts of an older ferry, before each one recorded its provider (schema 25): a local account (a password) with
 * a session a directory opened in it (the takeover migration 26 ends), an OpenID user with a session, and a user
 * no session names.
 */
const OWNERS_SEED = [
  `INSERT INTO users (id, created) VALUES ('admin', 1), ('oidc-user', 1), ('old-user', 1)`,
  `INSERT INTO local_accounts (user_id, password_hash, created, updated) VALUES ('admin', 'scrypt$x', 1, 1)`,
  `INSERT INTO sessions (id, user_id, csrf_token, created, last_seen, provider) VALUES ('s1', 'admin', 'c', 1, 1, 'local'), ('s2', 'admin', 'c', 2, 2, 'ldap'), ('s3', 'oidc-user', 'c', 1, 1, 'sso'), ('s4', 'oidc-user', 'c', 3, 3, 'sso2')`,
];
const OWNERS = [
  { id: 'admin', provider: 'local' },
  { id: 'oidc-user', provider: 'sso2' },
  { id: 'old-user', provider: null },
];

test("25 → latest, SQLite and PostgreSQL: each account is attributed (a password → local, else its newest session's provider, else none), and a session another provider opened in a local account ends", async () => {
  const file = path.join(tempDir(), 'ferry.db');
  const old = openSqliteFile(file, upTo(25));
  for (const q of OWNERS_SEED) old.exec(q);
  old.close();
  const db = openSqliteFile(file);
  assert.equal(db.prepare('SELECT id, provider FROM users ORDER BY id').all(), OWNERS);
  assert.equal(db.prepare('SELECT id FROM sessions ORDER BY id').all(), [{ id: 's1' }, { id: 's3' }, { id: 's4' }]);
  db.close();
  const pool = new pg.Pool({ connectionString: await freshPostgresDatabase('migrate_owners') });
  try {
    await migratePostgres(pool, upTo(25));
    for (const q of OWNERS_SEED) await pool.query(q);
    await migratePostgres(pool);
    assert.equal((await pool.query('SELECT id, provider FROM users ORDER BY id')).rows, OWNERS);
    assert.equal((await pool.query('SELECT id FROM sessions ORDER BY id')).rows, [
      { id: 's1' },
      { id: 's3' },
      { id: 's4' },
    ]);
  } finally {
    await pool.end();
  }
});

test.run();
