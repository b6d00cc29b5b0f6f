import fs from 'node:fs';
import path from 'node:path';
import { writeConfig } from '../helpers/config-file';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request, startTestServer, TestServer, tempDir, testDatabaseUrl } from '../helpers/server';
import { signedPath, nowS } from '../helpers/signing';
import { login } from '../helpers/session';
import { inAWeek } from '../helpers/upload-client';
import { runCli } from '../../src/cli/program';
import { startServe } from '../../src/cli/serve';

// ferry admin / user / remote-app, run while a server works on the same SQLite file, and the first start.
let s: TestServer;
let cfg: string;
let host: string;

test.before(async () => {
  s = await startTestServer({ admin: ['cfgadmin'], auth: { sp: { type: 'local' } } });
  host = new URL(s.url).host;
  cfg = path.join(s.dir, 'ferry.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      data_dir: path.join(s.dir, 'data'),
      admin: ['cfgadmin'],
      mail: { transport: null },
      purge_interval_s: 0,
      database_url: s.app.config.database_url,
    }),
  );
});
test.after(() => s.close());

/** Runs the CLI with its output captured; stdin holds `stdin`. */
async function cli(args: string[], stdin = '') {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, '-c', cfg], {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    readStdin: async () => stdin,
  });
  return { code, out: out.join('\n').trim(), err: err.join('\n').trim(), lines: out.join('\n').trim().split('\n') };
}

const status = (method: string, p: string, headers: Record<string, string> = {}, json?: unknown) =>
  s.request(method, p, { headers, json }).then((r) => r.status);

test('ferry user add / passwd / list / remove, seen at once by the running server', async () => {
  const add = await cli(
    ['user', 'add', 'erin', '--email', 'erin@example.org, e.r@example.org', '--password-stdin'],
    'a long password\n',
  );
  assert.is(add.code, 0, add.err);
  const erin = await login(s, 'erin', 'a long password');
  assert.equal((await s.request('GET', '/user', { headers: { Cookie: erin.cookie } })).json.email, [
    'erin@example.org',
    'e.r@example.org',
  ]);
  const short = await cli(['user', 'passwd', 'erin', '--password-stdin'], 'short\n');
  assert.is(short.code, 1);
  assert.match(short.err, /at least 8/);
  assert.is((await cli(['user', 'passwd', 'erin', '--password-stdin'], 'another long one\n')).code, 0);
  assert.is(await status('GET', '/user', { Cookie: erin.cookie }), 401, 'a new password ends the sessions');
  assert.is(
    (await s.request('POST', '/login', { json: { user_id: 'erin', password: 'a long password' } })).status,
    401,
  );
  await login(s, 'erin', 'another long one');
  const list = await cli(['user', 'list', '--json']);
  const row = JSON.parse(list.out).find((u: { id: string }) => u.id === 'erin');
  assert.equal(row, {
    id: 'erin',
    emails: ['erin@example.org', 'e.r@example.org'],
    local: true,
    admin: false,
    provider: 'local',
    links: [],
  });
  assert.ok((await cli(['user', 'list'])).lines.includes('erin\terin@example.org,e.r@example.org\tlocal'));
  assert.is((await cli(['user', 'add', 'bad id!', '--email', 'x@example.org'])).code, 1);
  assert.is((await cli(['user', 'add', 'frank', '--email', 'not-an-address'])).code, 1);
  assert.is(
    (await cli(['user', 'add', 'frank', '--email', 'frank@example.org', '--password-stdin'], '')).code,
    1,
    'empty stdin',
  );
});

test("ferry user remove: no more login, sessions closed; the user's transfers stay", async () => {
  assert.is(
    (await cli(['user', 'add', 'gina', '--email', 'gina@example.org', '--password-stdin'], 'gina password')).code,
    0,
  );
  const g = await login(s, 'gina', 'gina password');
  const t = await s.request('POST', '/transfer', {
    json: {
      files: [{ name: 'g', size: 1 }],
      recipients: ['r@example.org'],
      from: 'gina@example.org',
      expires: inAWeek(),
    },
    headers: { Cookie: g.cookie, 'X-Ferry-Security-Token': g.csrf },
  });
  assert.is(t.status, 201, t.text);
  const rm = await cli(['user', 'remove', 'gina']);
  assert.is(rm.code, 0, rm.err);
  assert.is(await status('GET', '/user', { Cookie: g.cookie }), 401);
  assert.is((await s.request('POST', '/login', { json: { user_id: 'gina', password: 'gina password' } })).status, 401);
  assert.is((await s.app.services.transfers.get(t.json.id)).userId, 'gina');
  const again = await cli(['user', 'remove', 'gina']);
  assert.equal([again.code, again.err], [1, 'error: user_not_found']);
});

test('ferry admin add / list / remove: effective at once in the running server', async () => {
  await cli(['user', 'add', 'hank', '--email', 'hank@example.org', '--password-stdin'], 'hank password');
  const h = await login(s, 'hank', 'hank password');
  assert.is(await status('GET', '/transfer/@all', { Cookie: h.cookie }), 403);
  assert.is((await cli(['admin', 'add', 'hank'])).code, 0);
  assert.is(await status('GET', '/transfer/@all', { Cookie: h.cookie }), 200);
  assert.equal(JSON.parse((await cli(['admin', 'list', '--json'])).out), { database: ['hank'], config: ['cfgadmin'] });
  assert.equal((await cli(['admin', 'list'])).lines, ['cfgadmin\t(config)', 'hank']);
  assert.is((await cli(['admin', 'remove', 'hank'])).code, 0);
  assert.is(await status('GET', '/transfer/@all', { Cookie: h.cookie }), 403);
  const unknown = await cli(['admin', 'remove', 'nobody']);
  assert.is(unknown.code, 1);
  assert.match(unknown.err, /nobody is not an admin in the database/);
});

test('ferry remote-app add / rotate [--grace] / list / remove against the running server; secrets printed once, last line', async () => {
  const call = (name: string, secret: string) =>
    s
      .request(
        'GET',
        signedPath({
          method: 'GET',
          host,
          path: '/transfer/@all',
          args: { remote_application: name, timestamp: nowS() },
          secret,
        }),
      )
      .then((r) => r.json?.message ?? r.status);
  const added = await cli(['remote-app', 'add', 'cli-app', '--admin', '--json']);
  assert.is(added.code, 0, added.err);
  const created = JSON.parse(added.lines[added.lines.length - 1]);
  assert.equal([created.name, created.admin], ['cli-app', true]);
  assert.match(created.secret, /^[0-9a-f]{64}$/);
  assert.is(await call('cli-app', created.secret), 200);
  const dup = await cli(['remote-app', 'add', 'cli-app']);
  assert.is(dup.code, 1);
  const text = await cli(['remote-app', 'add', 'plain']);
  const plainSecret = text.lines[text.lines.length - 1];
  assert.match(plainSecret, /^[0-9a-f]{64}$/);
  assert.is(await call('plain', plainSecret), 'rest_admin_required');

  const rotated = await cli(['remote-app', 'rotate', 'cli-app']);
  const second = rotated.lines[rotated.lines.length - 1];
  assert.match(second, /^[0-9a-f]{64}$/);
  assert.is(
    await call('cli-app', created.secret),
    'auth_remote_signature_check_failed',
    'no grace: the old secret stops at once',
  );
  assert.is(await call('cli-app', second), 200);
  const graced = JSON.parse((await cli(['remote-app', 'rotate', 'cli-app', '--grace', '600', '--json'])).out);
  assert.is(graced.admin, true);
  assert.is(await call('cli-app', second), 200, 'within the grace period');
  assert.is(await call('cli-app', graced.secret), 200);
  assert.is((await cli(['remote-app', 'rotate', 'cli-app', '--grace', 'soon'])).code, 1);
  assert.is((await cli(['remote-app', 'rotate', 'nobody'])).code, 1);

  const list = await cli(['remote-app', 'list', '--json']);
  const apps = JSON.parse(list.out);
  assert.equal(
    apps.map((a: { name: string }) => a.name),
    ['cli-app', 'plain'],
  );
  assert.ok(apps[0].grace_until > nowS());
  const human = await cli(['remote-app', 'list']);
  for (const secret of [created.secret, second, graced.secret, plainSecret]) {
    assert.not.ok(list.out.includes(secret) || human.out.includes(secret), 'list never shows a secret');
  }
  assert.is((await cli(['remote-app', 'remove', 'cli-app'])).code, 0);
  assert.is(await call('cli-app', graced.secret), 'auth_remote_unknown_application');
  assert.is((await cli(['remote-app', 'remove', 'cli-app'])).code, 1);
});

test('first start with the local service provider: `admin`, an admin, with a random password printed once', async () => {
  const dir = tempDir();
  const config = writeConfig(dir, { mail: { transport: null }, database_url: await testDatabaseUrl() });
  const out: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), readStdin: async () => '' };
  const first = await startServe({ config, port: '0', host: '127.0.0.1' }, io);
  try {
    const line = out.find((l) => l.includes('created the first account'));
    assert.ok(line, out.join('\n'));
    const password = /password (\S+)/.exec(line!)![1];
    assert.ok(password.length >= 20);
    const r = await request(first.url, 'POST', '/login', { json: { user_id: 'admin', password } });
    assert.is(r.status, 200);
    const cookie = r.headers.get('set-cookie')!.split(';')[0];
    assert.is(
      (await request(first.url, 'GET', '/transfer/@all', { headers: { Cookie: cookie } })).status,
      200,
      'an admin',
    );
  } finally {
    await first.stop();
  }
  out.length = 0;
  const second = await startServe({ config, port: '0', host: '127.0.0.1' }, io);
  await second.stop();
  assert.not.ok(
    out.some((l) => l.includes('created the first account')),
    'printed once only',
  );
  fs.rmSync(dir, { recursive: true, force: true });
});

test('first start with the header service provider: no local account is made', async () => {
  const dir = tempDir();
  const sp = {
    type: 'header',
    uid_header: 'X-Remote-User',
    email_header: 'X-Remote-Email',
    trusted_proxies: ['127.0.0.1'],
  };
  const config = writeConfig(dir, { mail: { transport: null }, auth: { sp }, database_url: await testDatabaseUrl() });
  const out: string[] = [];
  const h = await startServe(
    { config, port: '0', host: '127.0.0.1' },
    { out: (t) => out.push(t), err: (t) => out.push(t), readStdin: async () => '' },
  );
  await h.stop();
  assert.not.ok(out.some((l) => l.includes('created the first account')));
  fs.rmSync(dir, { recursive: true, force: true });
});

test.run();
