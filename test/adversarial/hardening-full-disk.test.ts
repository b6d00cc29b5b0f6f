import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { startTestServer, tempDir, TestServer, TestResponse, TEST_DB } from '../helpers/server';
import { login, withSession, Session } from '../helpers/session';
import { patternBytes, sendChunks, sha256, inAWeek } from '../helpers/upload-client';
import { postgresServer } from '../helpers/system/postgres';
import { assertErrorShape } from './fixture';

// A full disk under the database: writes (a login, a new Transfer) answer 507 storage_not_enough_space_left in
// the spec's shape, never 500 ("database or disk is full", SQLite's SQLITE_FULL; "could not extend file",
// PostgreSQL's SQLSTATE 53100); reads go on; deleting a Transfer still works, since that is how space comes
// back; and nothing acknowledged before or during is lost. The disk is a small tmpfs holding the file data and
// the database: on SQLite the database file in data_dir; on PostgreSQL (FERRY_TEST_DB=postgres) a tablespace of
// the test's PostgreSQL server in which every table of the database is made, its write-ahead log staying on
// the server's own disk (a server that cannot write its WAL stops, which is an outage, not a full disk).
const CHUNK = 256 * 1024;
const PASSWORD = 'correct horse battery';

/** A Transfer of one file, or the answer that refused it. */
const draft = (name: string, size: number) => ({
  files: [{ name, size }],
  recipients: ['r@example.org'],
  from: 'alice@example.org',
  expires: inAWeek(),
});

/** A small tmpfs at a new temp dir (mount needs root, as the adversarial suite runs). */
function smallDisk(size: string): string {
  const root = tempDir('ferry-full-');
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=755`, 'tmpfs', root], { encoding: 'utf8' });
  assert.is(mount.status, 0, `mounting a small tmpfs needs root: ${mount.stderr}`);
  return root;
}

/**
 * The database_url of a fresh database whose tables all go to a tablespace on `disk` (PostgreSQL), or null
 * (SQLite, in data_dir); and how to drop it again before the disk is unmounted.
 */
async function databaseOn(disk: string): Promise<{ url: string | null; drop(): Promise<void> }> {
  if (TEST_DB !== 'postgres') return { url: null, drop: async () => {} };
  const server = await postgresServer();
  const location = path.join(disk, 'pg');
  fs.mkdirSync(location, { mode: 0o700 });
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  fs.chownSync(location, uid, gid);
  const url = await server.createDatabase('ferry_full');
  const name = new URL(url).pathname.slice(1);
  const space = `${name}_disk`;
  const admin = async (text: string) => {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE TABLESPACE ${space} LOCATION '${location}'`);
  // Every table, index and sequence the migrations make lands there; the catalogue and the WAL do not.
  await admin(`ALTER DATABASE ${name} SET default_tablespace = ${space}`);
  return {
    url,
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin(`DROP TABLESPACE IF EXISTS ${space}`);
    },
  };
}

/** Takes every byte left on the disk: a filler grown until the disk refuses (bounded). */
function fill(disk: string): void {
  const fd = fs.openSync(path.join(disk, 'filler'), 'w');
  try {
    const block = Buffer.alloc(64 * 1024);
    for (let i = 0; i < 4096; i++) fs.writeSync(fd, block);
    assert.unreachable('the disk never filled');
  } catch (e) {
    assert.is((e as NodeJS.ErrnoException).code, 'ENOSPC', String(e));
  } finally {
    fs.closeSync(fd);
  }
}

/** A write on the full disk: acknowledged, or refused with 507 in the spec's shape, never anything else. */
function refusedOrDone(r: TestResponse, what: string, ok: number): boolean {
  assert.ok(r.status === ok || r.status === 507, `${what} on a full disk: ${r.status} ${r.text.slice(0, 300)}`);
  if (r.status === ok) return false;
  assert.is(r.json?.message, 'storage_not_enough_space_left', r.text);
  assertErrorShape(r, `${what} on a full disk`);
  return true;
}

test(`on a full disk (${TEST_DB}): logins and new Transfers answer 507 in the spec shape, DELETE /transfer works, space comes back, nothing acknowledged is lost`, async () => {
  const disk = smallDisk('8m');
  let s: TestServer | undefined;
  let db: Awaited<ReturnType<typeof databaseOn>> | undefined;
  try {
    db = await databaseOn(disk);
    s = await startTestServer({
      auth: { sp: { type: 'local' } },
      upload_chunk_size: CHUNK,
      data_dir: path.join(disk, 'data'),
      database_url: db.url,
    });
    const srv = s;
    await srv.app.services.accounts.addUser('alice', ['alice@example.org'], PASSWORD);
    const alice = await login(srv, 'alice', PASSWORD);
    const create = (sess: Session, name: string, size: number) =>
      srv.request('POST', '/transfer', { headers: withSession(sess), json: draft(name, size) });
    const upload = async (fileId: number, data: Buffer) => {
      for (const r of await sendChunks(srv.request, fileId, data, CHUNK, { headers: withSession(alice) }))
        assert.is(r.status, 200, r.text);
    };

    // Sent before the disk fills: an available Transfer with a recipient, and one still being uploaded.
    const keptData = patternBytes('kept', 512 * 1024);
    const kept = await create(alice, 'kept.bin', keptData.length);
    assert.is(kept.status, 201, kept.text);
    await upload(kept.json.files[0].id, keptData);
    const fileDone = await srv.request('PUT', `/file/${kept.json.files[0].id}`, {
      headers: withSession(alice),
      json: { complete: true },
    });
    assert.is(fileDone.status, 200, fileDone.text);
    const sent = await srv.request('PUT', `/transfer/${kept.json.id}`, {
      headers: withSession(alice),
      json: { complete: true },
    });
    assert.is(sent.status, 200, sent.text);
    const token = sent.json.recipients[0].token as string;
    const big = await create(alice, 'big.bin', 1024 * 1024);
    assert.is(big.status, 201, big.text);
    await upload(big.json.files[0].id, patternBytes('big', 1024 * 1024));

    fill(disk);

    // Writes until the database refuses: every answer 201/200 (room left in a page) or 507, never a 500.
    const acknowledged: number[] = [];
    const sessions: Session[] = [];
    let transferRefused = false;
    let loginRefused = false;
    for (let i = 0; i < 400 && !(transferRefused && loginRefused); i++) {
      if (!transferRefused) {
        const r = await create(alice, `during-${i}.txt`, 10);
        transferRefused = refusedOrDone(r, 'POST /transfer', 201);
        if (!transferRefused) acknowledged.push(r.json.id);
      }
      if (!loginRefused) {
        const r = await srv.request('POST', '/login', { json: { user_id: 'alice', password: PASSWORD } });
        loginRefused = refusedOrDone(r, 'POST /login', 200);
        if (!loginRefused)
          sessions.push({ cookie: r.headers.get('set-cookie')!.split(';')[0], csrf: r.json.csrf_token, setCookie: '' });
      }
    }
    assert.ok(transferRefused, 'the full database refused a new Transfer');
    assert.ok(loginRefused, 'the full database refused a login');
    // Reads go on.
    const read = await srv.request('GET', `/transfer/${kept.json.id}`, { headers: withSession(alice) });
    assert.is(read.status, 200, read.text);

    // Deleting is how space comes back: it works on the full disk, and the file data goes.
    const del = await srv.request('DELETE', `/transfer/${big.json.id}`, { headers: withSession(alice) });
    assert.is(del.status, 200, `DELETE /transfer on a full disk: ${del.text}`);
    const closed = await srv.request('GET', `/transfer/${big.json.id}`, { headers: withSession(alice) });
    assert.is(closed.json?.status, 'closed', closed.text);
    assert.not.ok(
      fs.existsSync(path.join(disk, 'data', 'files', String(big.json.id), big.json.files[0].uid)),
      'its data is gone',
    );
    const again = await create(alice, 'after.txt', 10);
    assert.is(again.status, 201, `with the space back: ${again.text}`);
    const relogin = await srv.request('POST', '/login', { json: { user_id: 'alice', password: PASSWORD } });
    assert.is(relogin.status, 200, `with the space back: ${relogin.text}`);

    // Nothing acknowledged is lost: the available file downloads whole, every Transfer and session made on
    // the full disk is there.
    const dl = await fetch(`${srv.url}/download?token=${token}&files_ids=${kept.json.files[0].id}`);
    assert.is(dl.status, 200);
    assert.is(sha256(Buffer.from(await dl.arrayBuffer())), sha256(keptData), 'the available file is intact');
    for (const id of acknowledged) {
      const t = await srv.request('GET', `/transfer/${id}`, { headers: withSession(alice) });
      assert.is(t.status, 200, `Transfer ${id} acknowledged on the full disk: ${t.text}`);
      assert.is(t.json.files.length, 1);
    }
    for (const sess of sessions) {
      const mine = await srv.request('GET', '/transfer', { headers: withSession(sess) });
      assert.is(mine.status, 200, `a session acknowledged on the full disk: ${mine.text}`);
    }
  } finally {
    await s?.close().catch(() => {});
    await db?.drop();
    spawnSync('umount', ['-l', disk]);
  }
});

test.run();
