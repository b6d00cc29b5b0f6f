import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import pg from 'pg';
import { startTestServer, asUser, HEADER_SP, TestServer, sql, testStorage } from '../helpers/server';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { until } from '../helpers/until';
import { signedPath, nowS } from '../helpers/signing';
import { inAWeek, patternBytes, sha256 } from '../helpers/upload-client';
import { runCli } from '../../src/cli/program';
import { TABLES } from '../../src/db/schema';

// `ferry db copy --to postgres://…`: a populated SQLite instance, still running, is copied into an empty
// PostgreSQL database; every table compares equal row by row, the source is untouched, and an instance
// switched over with database_url serves what was there.

let s: TestServer;
/** The file store both instances share (the filesystem of the data dir, or one S3 prefix): only the database moves. */
let storage: Record<string, unknown> | undefined;
const alice = asUser('alice');
const data = patternBytes('copy', 200_000);

/** Every row of every table, in a stable order, as plain JSON (numbers as numbers on both sides). */
async function dump(query: (text: string) => Promise<Record<string, unknown>[]>): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES)
    out[t.name] = (await query(`SELECT * FROM ${t.name} ORDER BY ${t.orderBy.join(', ')}`)).map((r) => ({ ...r }));
  return out;
}

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await runCli(args, { out: (t) => out.push(t), err: (t) => out.push(t), readStdin: async () => '' });
  return { code, out: out.join('\n') };
}

test.before(async () => {
  // The source is SQLite whatever FERRY_TEST_DB says: this is the move from one box to many.
  storage = await testStorage();
  s = await startTestServer({
    ...HEADER_SP,
    admin: ['boss'],
    database_url: null,
    mail: { transport: null },
    ...(storage ? { storage } : {}),
  });
  // Transfers with uploaded files, recipients, downloads, audit entries and queued mail; a guest; users,
  // admins, a remote application and its used signatures; overrides; a session's worth of every table.
  const t = (
    await s.request('POST', '/transfer', {
      headers: alice,
      json: {
        files: [
          { name: 'a.bin', size: data.length },
          { name: 'b.txt', size: 3 },
        ],
        recipients: ['r1@example.org', 'r2@example.org'],
        from: 'alice@example.org',
        expires: inAWeek(),
        options: ['email_download_complete'],
      },
    })
  ).json;
  for (const [f, bytes] of [
    [t.files[0], data],
    [t.files[1], Buffer.from('abc')],
  ] as const) {
    assert.is((await s.request('PUT', `/file/${f.id}/chunk/0`, { headers: alice, body: bytes })).status, 200);
    assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  }
  assert.is((await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } })).status, 200);
  assert.is(
    (await s.request('GET', `/download?token=${t.recipients[0].token}&files_ids=${t.files[1].id}`)).status,
    200,
  );
  await s.request('POST', '/transfer', {
    headers: asUser('bob'),
    json: {
      files: [{ name: 'c', size: 9 }],
      recipients: ['alice@example.org'],
      from: 'bob@example.org',
      expires: inAWeek(),
    },
  });
  assert.is(
    (
      await s.request('POST', '/guest', {
        headers: alice,
        json: { recipient: 'guest@example.org', from: 'alice@example.org' },
      })
    ).status,
    201,
  );
  assert.is(
    (await s.request('PUT', '/config', { headers: asUser('boss'), json: { max_transfer_files: 12 } })).status,
    200,
  );
  await s.app.services.users.addAdmin('carol');
  await s.app.services.accounts.addUser('dave', ['dave@example.org'], 'dave password');
  const secret = await s.app.services.accounts.addRemoteApp('portal', false);
  const body = JSON.stringify({ recipient: 'signed@example.org', from: 'x@example.org' });
  const signed = signedPath({
    method: 'POST',
    host: new URL(s.url).host,
    path: '/guest',
    args: { remote_application: 'portal', remote_user: 'alice', timestamp: nowS() },
    secret,
    body,
  });
  assert.is((await s.request('POST', signed, { headers: { 'content-type': 'application/json' }, body })).status, 201);
  await sql(
    s,
    `INSERT INTO tracking_errors (target_type, target_id, type, date, details) VALUES ('Recipient', ?, 'bounce', 1900000000, '550 no')`,
    t.recipients[1].id,
  );
  await sql(
    s,
    `INSERT INTO sessions (id, user_id, csrf_token, created, last_seen) VALUES ('s1', 'dave', 'c1', ?, ?)`,
    nowS(),
    nowS(),
  );
  await sql(s, `INSERT INTO login_failures (key, at) VALUES ('user:dave', ?)`, nowS());
});

test.after(async () => {
  await s.close();
});

test('ferry db copy moves every row of every table into an empty PostgreSQL database, from a running instance, source untouched', async () => {
  const url = await freshPostgresDatabase('ferry_copy');
  const cfg = path.join(s.dir, 'ferry.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({ ...HEADER_SP, data_dir: path.join(s.dir, 'data'), mail: { transport: null } }),
  );
  // The running instance's mail worker is still sending what setup queued: a row turning from pending to sent
  // between this dump and the copy is the instance at work, not the copy changing anything.
  await until(
    'the queued mail is sent',
    async () =>
      ((await s.app.db.query(`SELECT id FROM mail_queue WHERE status = 'pending'`)) as unknown[]).length === 0,
    10_000,
  );
  const before = await dump((text) => s.app.db.query(text));
  for (const table of [
    'transfers',
    'files',
    'recipients',
    'audit_log',
    'mail_queue',
    'guests',
    'users',
    'user_emails',
    'admins',
    'local_accounts',
    'remote_apps',
    'used_signatures',
    'config_overrides',
    'recipient_downloads',
    'tracking_errors',
    'sessions',
    'frequent_recipients',
    'login_failures',
  ]) {
    assert.ok(before[table].length > 0, `the source has rows in ${table}`);
  }
  const fileBefore = fs.readFileSync(path.join(s.dir, 'data', 'ferry.db')).length;

  const r = await cli(['db', 'copy', '--to', url, '--json', '-c', cfg]);
  assert.is(r.code, 0, r.out);
  const report = JSON.parse(r.out.trim().split('\n').pop()!);
  assert.not.match(r.out, /password/);
  for (const t of TABLES) assert.is(report.tables[t.name], before[t.name].length, `${t.name} count reported`);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // int8 comes back as a string from a plain client; compare as the application reads them (numbers).
    const after = await dump(async (text) =>
      (await client.query(text)).rows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [
            k,
            typeof v === 'string' && /^-?\d+$/.test(v) && k !== 'id' ? Number(v) : v,
          ]),
        ),
      ),
    );
    for (const t of TABLES) {
      const norm = (rows: unknown[]) =>
        rows.map((row) =>
          Object.fromEntries(
            Object.entries(row as object).map(([k, v]) => [
              k,
              typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v,
            ]),
          ),
        );
      assert.equal(norm(after[t.name]), norm(before[t.name]), `table ${t.name}`);
    }
  } finally {
    await client.end();
  }
  assert.equal(await dump((text) => s.app.db.query(text)), before, 'the source is unchanged');
  assert.ok(fs.readFileSync(path.join(s.dir, 'data', 'ferry.db')).length >= fileBefore);
  assert.equal(
    fs.readdirSync(path.join(s.dir, 'data')).filter((f) => f.startsWith('.copy-')),
    [],
    'no snapshot left behind',
  );

  // A second copy into the same (no longer empty) database is refused: nothing is merged or overwritten.
  const again = await cli(['db', 'copy', '--to', url, '-c', cfg]);
  assert.is(again.code, 1);
  assert.match(again.out, /not empty/);

  // Switched over: an instance on the same data_dir with database_url serves what was there, and new ids follow the copied ones.
  const moved = await startTestServer({
    ...HEADER_SP,
    admin: ['boss'],
    database_url: url,
    data_dir: path.join(s.dir, 'data'),
    mail: { transport: null },
    ...(storage ? { storage } : {}),
  });
  try {
    const list = (await moved.request('GET', '/transfer', { headers: alice })).json;
    const t = list.find((x: { files: { name: string }[] }) => x.files.some((f) => f.name === 'a.bin'));
    assert.is(t.status, 'available');
    const got = await fetch(`${moved.url}/download?token=${t.recipients[0].token}&files_ids=${t.files[0].id}`);
    assert.is(sha256(Buffer.from(await got.arrayBuffer())), sha256(data));
    assert.is((await moved.request('GET', '/config', { headers: asUser('boss') })).json.max_transfer_files, 12);
    const next = await moved.request('POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name: 'n', size: 1 }] }),
    });
    assert.is(next.status, 201, next.text);
    assert.ok(next.json.id > Math.max(...before.transfers.map((x) => (x as { id: number }).id)));
  } finally {
    await moved.close();
  }
});

test('ferry db copy refuses a URL that is not PostgreSQL and an instance already on PostgreSQL', async () => {
  assert.is((await cli(['db', 'copy', '--to', 'mysql://x/y', '-c', path.join(s.dir, 'ferry.json')])).code, 1);
  const cfg = path.join(s.dir, 'pg.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({ data_dir: path.join(s.dir, 'data'), database_url: 'postgres://u:secret@127.0.0.1:1/x' }),
  );
  const r = await cli(['db', 'copy', '--to', 'postgres://u@127.0.0.1:1/y', '-c', cfg]);
  assert.is(r.code, 1);
  assert.not.match(r.out, /secret/);
});

test.run();
