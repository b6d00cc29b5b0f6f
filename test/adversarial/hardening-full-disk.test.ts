import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startTestServer, HEADER_SP, asUser, tempDir, TestServer } from '../helpers/server';
import { patternBytes, sendChunks, inAWeek } from '../helpers/upload-client';
import { assertErrorShape } from './fixture';

// A full disk under the database: writes answer 507 storage_not_enough_space_left in the spec's shape (not
// 500 "database or disk is full"), and deleting a Transfer still works, since that is how space comes back.
// The disk here is the server's own (a small tmpfs holding its data directory, SQLite and file data alike):
// a PostgreSQL server's disk is the PostgreSQL server's, and its "disk full" (SQLSTATE 53100) maps to the same
// answer (src/http/middleware/errors.ts).
const CHUNK = 256 * 1024;
const alice = asUser('alice');

test('on a full disk: POST /transfer answers 507 in the spec shape, DELETE /transfer works and space comes back', async () => {
  const root = tempDir();
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', root]);
  assert.is(mount.status, 0, `mounting a small tmpfs needs root: ${mount.stderr}`);
  let s: TestServer | undefined;
  try {
    s = await startTestServer({
      ...HEADER_SP,
      upload_chunk_size: CHUNK,
      data_dir: path.join(root, 'data'),
      database_url: null,
    });
    const create = () =>
      s!.request('POST', '/transfer', {
        headers: alice,
        json: {
          files: [{ name: 'big', size: 1024 * 1024 }],
          recipients: ['r@example.org'],
          from: 'alice@example.org',
          expires: inAWeek(),
        },
      });
    const t = await create();
    assert.is(t.status, 201, t.text);
    for (const r of await sendChunks(s.request, t.json.files[0].id, patternBytes('full', 1024 * 1024), CHUNK, {
      headers: alice,
    }))
      assert.is(r.status, 200, r.text);
    // Every byte left is taken (a filler grown until the disk refuses).
    const fd = fs.openSync(path.join(root, 'filler'), 'w');
    try {
      const block = Buffer.alloc(64 * 1024);
      for (let i = 0; i < 1000; i++) fs.writeSync(fd, block);
    } catch (e) {
      assert.is((e as NodeJS.ErrnoException).code, 'ENOSPC');
    } finally {
      fs.closeSync(fd);
    }
    let refused = 0;
    for (let i = 0; i < 20; i++) {
      const r = await create();
      assert.ok(
        r.status === 201 || r.status === 507,
        `POST /transfer on a full disk: ${r.status} ${r.text.slice(0, 200)}`,
      );
      if (r.status === 507) {
        assert.is(r.json.message, 'storage_not_enough_space_left');
        assertErrorShape(r, 'POST /transfer on a full disk');
        refused++;
        break;
      }
    }
    assert.ok(refused > 0, 'the full database refused a write');
    const del = await s.request('DELETE', `/transfer/${t.json.id}`, { headers: alice });
    assert.is(del.status, 200, `DELETE /transfer on a full disk: ${del.text}`);
    assert.is((await s.request('GET', `/transfer/${t.json.id}`, { headers: alice })).json.status, 'closed');
    assert.not.ok(
      fs.existsSync(path.join(root, 'data', 'files', String(t.json.id), t.json.files[0].uid)),
      'its data is gone',
    );
    const again = await create();
    assert.is(again.status, 201, `with the space back: ${again.text}`);
  } finally {
    await s?.app.close().catch(() => {});
    spawnSync('umount', ['-l', root]);
    await s?.close().catch(() => {});
  }
});

test.run();
