import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, HEADER_SP, startTestServer, TestServer } from '../helpers/server';
import { postgresServer } from '../helpers/system/postgres';
import { startTestSink } from '../helpers/mail';

const ready = (s: TestServer) => s.request('GET', '/readyz');

/** Asks /readyz until it answers `status` (the pool reconnecting, a cached check expiring); bounded. */
async function until(s: TestServer, status: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await ready(s);
    if (r.status === status || Date.now() > deadline) return r;
    await new Promise((res) => setTimeout(res, 200));
  }
}

function assertUnavailable(r: Awaited<ReturnType<typeof ready>>, failing: string[]) {
  assert.is(r.status, 503, r.text);
  assert.equal(r.json, { status: 'unavailable', failing });
  assert.ok(Number(r.headers.get('retry-after')) > 0);
}

test('GET /readyz: 200 while database, store and mail answer; /healthz stays 200 whatever happens', async () => {
  const sink = await startTestSink();
  const s = await startTestServer({ mail: { transport: sink.url } });
  try {
    const r = await ready(s);
    assert.is(r.status, 200, r.text);
    assert.equal(r.json, { status: 'ok' });
  } finally {
    await s.close();
    await sink.close();
  }
});

test('GET /readyz: 503 naming "database" while PostgreSQL is stopped, 200 again once it is back', async () => {
  const pg = await postgresServer();
  const s = await startTestServer({ ...HEADER_SP, database_url: await pg.createDatabase('ferry_ready') });
  try {
    assert.is((await ready(s)).status, 200);
    pg.stop();
    try {
      const started = Date.now();
      assertUnavailable(await ready(s), ['database']);
      assert.ok(Date.now() - started < 5000, 'answers within its bound');
      assert.is((await s.request('GET', '/healthz')).status, 200);
      // A request that needs the database meanwhile gets the catalogue's 503, never a driver's code or a 500.
      const r = await s.request('GET', '/transfer', {
        headers: { 'X-Remote-User': 'alice', 'X-Remote-Email': 'alice@example.org' },
      });
      assert.is(r.status, 503, r.text);
      assert.is(r.json.message, 'database_unavailable');
      assert.is(r.headers.get('retry-after'), '5');
    } finally {
      pg.start();
    }
    assert.is((await until(s, 200)).status, 200);
  } finally {
    await s.close();
  }
});

test('PostgreSQL stopped while a cross-node lock holds its connection: the process goes on, the lock is released, ready again', async () => {
  const pg = await postgresServer();
  const s = await startTestServer({ ...HEADER_SP, database_url: await pg.createDatabase('ferry_lock') });
  try {
    // What the purge and the background jobs hold: a session-level lock on a connection of its own, checked out
    // of the pool for as long as the lock. The server ending that session used to be an unhandled 'error'
    // event on it, which ended the whole process.
    const release = await s.app.db.locks.tryLock('readiness-test');
    assert.ok(release, 'the lock is free');
    pg.stop();
    try {
      assertUnavailable(await ready(s), ['database']);
    } finally {
      pg.start();
    }
    await release!();
    assert.is((await until(s, 200)).status, 200);
    const again = await s.app.db.locks.tryLock('readiness-test');
    assert.ok(again, 'the lock ended with its session');
    await again!();
  } finally {
    await s.close();
  }
});

test('GET /readyz: 503 naming "store" while the files folder is gone, 200 again once it is back', async () => {
  // This test looks at data/files itself: the filesystem store whatever FERRY_TEST_STORAGE says.
  const s = await startTestServer({ storage: { type: 'fs' } });
  try {
    assert.is((await ready(s)).status, 200);
    const files = path.join(s.app.config.data_dir, 'files');
    fs.rmSync(files, { recursive: true });
    assertUnavailable(await ready(s), ['store']);
    // A file where the folder was (a mount gone wrong) is no store either.
    fs.writeFileSync(files, '');
    assertUnavailable(await ready(s), ['store']);
    fs.rmSync(files);
    fs.mkdirSync(files, { mode: 0o700 });
    assert.is((await ready(s)).status, 200);
  } finally {
    await s.close();
  }
});

test('GET /readyz: 503 naming "mail" when the SMTP server does not answer; ready with no transport configured', async () => {
  const closed = await freePort();
  const s = await startTestServer({ mail: { transport: `smtp://127.0.0.1:${closed}` } });
  try {
    assertUnavailable(await ready(s), ['mail']);
  } finally {
    await s.close();
  }
  const none = await startTestServer({ mail: { transport: null } });
  try {
    assert.is((await ready(none)).status, 200);
  } finally {
    await none.close();
  }
});

test.run();
