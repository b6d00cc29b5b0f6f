import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { writeConfig } from '../helpers/config-file';
import { HEADER_SP, TEST_DB, request, tempDir, testDatabaseUrl } from '../helpers/server';
import { startServe } from '../../src/cli/serve';
import { runCli } from '../../src/cli/program';
import { latestVersion, rewindLastMigration } from '../helpers/older-schema';

/**
 * The two commands a package's maintainer scripts run (docs/deploying.md, "The Debian package"): `ferry admin
 * init`, the first admin without starting the server, its password in a 0600 file; and `ferry db migrate`, the
 * schema brought up to date without serving. Both may run again and then change nothing.
 */

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t), readStdin: async () => '' };
  const code = await runCli(args, io);
  return { code, out: lines.join('\n') };
}

async function config(extra: Record<string, unknown> = {}): Promise<{ dir: string; file: string }> {
  const dir = tempDir();
  return { dir, file: writeConfig(dir, { database_url: await testDatabaseUrl(), ...extra }) };
}

test('admin init writes the first password to a new 0600 file and says only where; it signs in; a second run makes none', async () => {
  const { dir, file } = await config();
  const pwFile = path.join(dir, 'first-admin-password');
  const r = await cli(['admin', 'init', '--password-file', pwFile, '-c', file]);
  assert.is(r.code, 0, r.out);
  assert.is(
    r.out,
    `created the first account: user "admin"; its password is in ${pwFile} (mode 0600, shown nowhere else)`,
  );
  assert.is(fs.statSync(pwFile).mode & 0o777, 0o600);
  const password = fs.readFileSync(pwFile, 'utf8').trim();
  assert.not.ok(r.out.includes(password));
  assert.equal(
    fs.readdirSync(dir).filter((f) => f.includes('.tmp')),
    [],
  );

  const again = await cli(['admin', 'init', '--password-file', pwFile, '-c', file]);
  assert.is(again.code, 0, again.out);
  assert.is(again.out, 'a local account exists already: none created');
  assert.is(fs.readFileSync(pwFile, 'utf8').trim(), password);

  // serve finds the account: it prints no password of its own, and the written one signs in.
  const out: string[] = [];
  const handle = await startServe(
    { config: file },
    { out: (t) => out.push(t), err: (t) => out.push(t), readStdin: async () => '' },
  );
  try {
    assert.not.match(out.join('\n'), 'created the first account');
    const login = await request(handle.url, 'POST', '/login', { json: { user_id: 'admin', password } });
    assert.is(login.status, 200, login.text);
  } finally {
    await handle.stop();
  }
});

test('admin init: a password file it cannot write is refused before any account exists; without the option it prints the password', async () => {
  const { dir, file } = await config();
  const bad = await cli(['admin', 'init', '--password-file', path.join(dir, 'absent', 'pw'), '-c', file]);
  assert.is(bad.code, 1, bad.out);
  assert.match(bad.out, /^error: --password-file: cannot write in .*absent/);
  assert.is(bad.out.split('\n').length, 1);
  const printed = await cli(['admin', 'init', '-c', file]);
  assert.is(printed.code, 0, printed.out);
  assert.match(printed.out, /^created the first account: user "admin", password \S{24} \(shown once\)$/);
});

test('admin init makes no account when the config has no local accounts', async () => {
  const { file } = await config(HEADER_SP);
  const r = await cli(['admin', 'init', '-c', file]);
  assert.is(r.code, 0, r.out);
  assert.is(r.out, 'no local accounts in this config (auth.sp): none created');
});

test('db migrate creates the schema, then finds it up to date; --json', async () => {
  const { file } = await config();
  const first = await cli(['db', 'migrate', '-c', file]);
  assert.is(first.code, 0, first.out);
  assert.match(first.out, new RegExp(`: created at schema version ${latestVersion()}$`));
  const again = await cli(['db', 'migrate', '--json', '-c', file]);
  assert.is(again.code, 0, again.out);
  const j = JSON.parse(again.out);
  assert.equal([j.from, j.to], [latestVersion(), latestVersion()]);
  assert.not.ok(String(j.where).includes('password'), 'a PostgreSQL URL is shown without its password');
});

if (TEST_DB === 'sqlite')
  test('db migrate brings a database one migration behind to the latest schema, keeping its rows', async () => {
    const { dir, file } = await config();
    assert.is((await cli(['admin', 'init', '-c', file])).code, 0);
    const db = path.join(dir, 'data', 'ferry.db');
    const { from, to } = rewindLastMigration(db);
    const r = await cli(['db', 'migrate', '-c', file]);
    assert.is(r.code, 0, r.out);
    assert.is(r.out, `database ${db}: migrated from schema version ${to} to ${from}`);
    const users = await cli(['user', 'list', '--json', '-c', file]);
    assert.equal(
      JSON.parse(users.out).map((u: { id: string }) => u.id),
      ['admin'],
    );
  });

test.run();
