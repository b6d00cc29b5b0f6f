import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { HEADER_SP, sql, startTestServer, tempDir, testDatabaseUrl, type TestServer } from '../helpers/server';
import { runCli } from '../../src/cli/program';
import { FEATURE_LEVEL, NODE_LEASE_S, ReleaseTooOldError, type Feature } from '../../src/domain/features';
import { migrations } from '../../src/db/migrations';

// Rolling upgrades (docs/deploying.md, "Upgrading a cluster"): nodes of two releases on one database. A feature
// made for this test, of the level after this release's, stays off on the newer node while a node of the older
// level runs, and comes on once the last older node is gone (stopped, or killed: not seen for 30 s); an older
// node then refuses to start. A node started on a database that a newer release migrated refuses to start with
// one plain line and exit code 1.

/** A feature of the next release: on only when every running node knows its level. */
const PROBE: Feature = { name: 'probe (test only)', level: FEATURE_LEVEL + 1 };

const quietIO = (out: string[]) => ({
  out: (t: string) => out.push(t),
  err: (t: string) => out.push(t),
  readStdin: async () => '',
});

async function cluster() {
  const dir = tempDir();
  // One database for every node: the same SQLite file, or the same PostgreSQL database.
  return { ...HEADER_SP, data_dir: path.join(dir, 'data'), database_url: await testDatabaseUrl() };
}

test('a feature of the next level stays off while a node of the older level runs, and comes on when it is gone', async () => {
  const config = await cluster();
  const older = await startTestServer(config, { featureLevel: FEATURE_LEVEL });
  let newer: TestServer | null = null;
  try {
    newer = await startTestServer(config, { featureLevel: FEATURE_LEVEL + 1 });
    const running = await newer.app.features.running();
    assert.equal(running.map((n) => n.featureLevel).sort(), [FEATURE_LEVEL, FEATURE_LEVEL + 1], 'both recorded');
    assert.ok(
      running.every((n) => n.release.length > 0),
      'with their release',
    );
    assert.is(newer.app.features.level(), FEATURE_LEVEL);
    assert.not.ok(newer.app.features.enabled(PROBE), 'off beside an older node');
    await newer.app.features.beat();
    assert.not.ok(newer.app.features.enabled(PROBE), 'still off while it runs');

    await older.close();
    await newer.app.features.beat();
    assert.ok(newer.app.features.enabled(PROBE), 'on once the last older node stopped');
    assert.is(newer.app.features.level(), FEATURE_LEVEL + 1);

    // An older node started now would serve what the feature protects without it: it refuses to start.
    let refused: unknown = null;
    try {
      const late = await startTestServer(config, { featureLevel: FEATURE_LEVEL });
      await late.close();
    } catch (e) {
      refused = e;
    }
    assert.instance(refused, ReleaseTooOldError);
    assert.match((refused as Error).message, `feature level ${FEATURE_LEVEL}`);
    assert.match((refused as Error).message, `of level ${FEATURE_LEVEL + 1}`);
    assert.equal(
      (await newer.app.features.running()).map((n) => n.featureLevel),
      [FEATURE_LEVEL + 1],
      'the refused node is not recorded',
    );
  } finally {
    await newer?.close();
    await older.close().catch(() => {});
  }
});

test('a killed older node counts until it has not been seen for 30 s; the level never falls back', async () => {
  const config = await cluster();
  const newer = await startTestServer(config, { featureLevel: FEATURE_LEVEL + 1 });
  try {
    // A node of the older level that was killed: its row stays, seen now, then no more.
    const now = Math.floor(Date.now() / 1000);
    await sql(
      newer,
      'INSERT INTO nodes (name, release, feature_level, started, seen) VALUES (?, ?, ?, ?, ?)',
      'old-host:4242',
      'previous',
      FEATURE_LEVEL,
      now,
      now,
    );
    // The level in force had already risen when this node started alone: it does not fall back for a row that
    // appears (an older node of this mechanism is refused at its start, and earlier releases do not record
    // themselves), so this test starts from a fresh level.
    await sql(newer, 'UPDATE feature_level SET level = ? WHERE id = 1', FEATURE_LEVEL);
    await newer.app.features.beat();
    assert.not.ok(newer.app.features.enabled(PROBE), 'off while the older node counts as running');
    await sql(newer, 'UPDATE nodes SET seen = ? WHERE name = ?', now - NODE_LEASE_S - 1, 'old-host:4242');
    await newer.app.features.beat();
    assert.ok(newer.app.features.enabled(PROBE), `on once it was not seen for ${NODE_LEASE_S} s`);
    // It comes back (a row seen again): the level stays where it is.
    await sql(newer, 'UPDATE nodes SET seen = ? WHERE name = ?', now + 5, 'old-host:4242');
    await newer.app.features.beat();
    assert.ok(newer.app.features.enabled(PROBE), 'never falls back');
  } finally {
    await newer.close();
  }
});

test('a node started on a database migrated by a newer release refuses with one plain line and exit code 1', async () => {
  const config = await cluster();
  const first = await startTestServer(config);
  const latest = Math.max(...migrations.map((m) => m.version));
  // A newer release's migration, as it would have recorded it.
  if (first.app.db.dialect === 'sqlite') first.app.db.sqlite!.pragma(`user_version = ${latest + 1}`);
  else await sql(first, 'INSERT INTO ferry_schema (version) VALUES (?)', latest + 1);
  await first.close();
  const dir = tempDir();
  const file = path.join(dir, 'ferry.json');
  fs.writeFileSync(file, JSON.stringify({ ...config, listen: { host: '127.0.0.1', port: 0 }, purge_interval_s: 0 }));
  for (const args of [['serve'], ['user', 'list']]) {
    const out: string[] = [];
    const code = await runCli([...args, '-c', file], quietIO(out));
    assert.is(code, 1, `${args.join(' ')}: ${out.join('\n')}`);
    assert.is(out.length, 1, out.join('\n'));
    assert.match(out[0], `error: the database's schema (version ${latest + 1}) was upgraded by a newer ferry`);
    assert.match(out[0], `knows versions up to ${latest}`);
    assert.match(out[0], 'Upgrading a cluster');
    assert.not.match(out[0], /internal error/);
  }
});

test.run();
