import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { startTestServer, TestServer, sql, TEST_STORAGE } from '../helpers/server';
import { capturingLogger, login, Session, withSession } from '../helpers/session';
import { inAWeek } from '../helpers/upload-client';

// Account management from the web (Admin → Users): add, remove, password reset, admin grants; one's own
// password; storage and usage figures. Every admin endpoint refuses anonymous (401) and plain users (403).
let s: TestServer;
const logged = capturingLogger();
let boss: Session;
let alice: Session;

test.before(async () => {
  s = await startTestServer({ auth: { sp: { type: 'local' } }, admin: ['root'] }, { log: logged.log });
  await s.app.services.accounts.addUser('boss', ['boss@example.org'], 'boss password');
  await s.app.services.users.addAdmin('boss');
  await s.app.services.accounts.addUser('root', ['root@example.org'], 'root password');
  await s.app.services.accounts.addUser('alice', ['alice@example.org'], 'alice password');
  boss = await login(s, 'boss', 'boss password');
  alice = await login(s, 'alice', 'alice password');
});
test.after(() => s.close());

const ADMIN_ENDPOINTS: [string, string, unknown?][] = [
  ['GET', '/user/@all'],
  ['POST', '/user', { id: 'x1', email: 'x1@example.org' }],
  ['DELETE', '/user/alice'],
  ['POST', '/user/alice/password', {}],
  ['PUT', '/user/alice/admin', { admin: true }],
  ['PUT', '/user/alice/quota', { quota: 5 }],
  ['GET', '/storage'],
  ['GET', '/usage'],
  ['GET', '/usage/counts'],
];

test('every admin endpoint: anonymous → 401, a user → 403 rest_admin_required, nothing changed', async () => {
  for (const [method, path, json] of ADMIN_ENDPOINTS) {
    const anon = await s.request(method, path, { json });
    assert.equal([anon.status, anon.json.message], [401, 'rest_authentication_required'], `${method} ${path}`);
    assert.ok(typeof anon.json.uid === 'string' && 'details' in anon.json);
    const user = await s.request(method, path, { json, headers: withSession(alice) });
    assert.equal([user.status, user.json.message], [403, 'rest_admin_required'], `${method} ${path}`);
  }
  const rows = await sql(s, `SELECT id, quota FROM users WHERE id IN ('alice', 'x1') ORDER BY id`);
  assert.equal(
    rows.map((r) => [r.id, r.quota]),
    [['alice', null]],
  );
  assert.equal((await s.request('GET', '/user', { headers: { Cookie: alice.cookie } })).json.id, 'alice');
});

test('the list: every user with e-mails, local account, admin (and whether by the config file), quota and use', async () => {
  const r = await s.request('GET', '/user/@all', { headers: { Cookie: boss.cookie } });
  assert.is(r.status, 200);
  const byId = new Map(r.json.map((u: any) => [u.id, u]));
  assert.equal(byId.get('alice'), {
    id: 'alice',
    emails: ['alice@example.org'],
    local: true,
    admin: false,
    admin_by_config: false,
    admin_by_provider: false,
    provider: 'local',
    quota: 0,
    quota_own: false,
    used: 0,
  });
  assert.equal([(byId.get('root') as any).admin, (byId.get('root') as any).admin_by_config], [true, true]);
  assert.equal([(byId.get('boss') as any).admin, (byId.get('boss') as any).admin_by_config], [true, false]);
});

test('add a user: the first password is answered once, works for login, is stored only as a hash and never logged', async () => {
  const before = logged.lines.length;
  const r = await s.request('POST', '/user', {
    headers: withSession(boss),
    json: { id: 'dave', email: 'dave@example.org', admin: false },
  });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.id, 'dave');
  assert.ok(typeof r.json.password === 'string' && r.json.password.length >= 12);
  assert.match(r.headers.get('location') ?? '', /\/user\/dave$/);
  const dave = await login(s, 'dave', r.json.password);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: dave.cookie } })).json.email[0], 'dave@example.org');
  const stored = await sql(s, `SELECT password_hash FROM local_accounts WHERE user_id = 'dave'`);
  assert.not.ok(stored[0].password_hash.includes(r.json.password));
  assert.not.ok(logged.lines.slice(before).some((l) => l.includes(r.json.password)));
  // An admin from the start
  const eve = await s.request('POST', '/user', {
    headers: withSession(boss),
    json: { id: 'eve', email: ['eve@example.org'], admin: true },
  });
  assert.is(eve.status, 201);
  const list = (await s.request('GET', '/user/@all', { headers: { Cookie: boss.cookie } })).json;
  assert.is(list.find((u: any) => u.id === 'eve').admin, true);
});

test('add a user: bad id, bad or missing e-mail, unknown field → 400; an existing id → 409 user_exists (not overwritten)', async () => {
  const h = withSession(boss);
  const cases: [unknown, number, string, string[]][] = [
    [{ id: 'a b', email: 'x@example.org' }, 400, 'rest_bad_parameter', ['user_id']],
    [{ id: 'frank', email: 'not-an-address' }, 400, 'bad_email', ['email']],
    [{ id: 'frank' }, 400, 'bad_email', ['email']],
    [{ email: 'x@example.org' }, 400, 'rest_missing_parameter', ['id']],
    [{ id: 'frank', email: 'f@example.org', role: 'x' }, 400, 'rest_bad_parameter', ['role']],
    [{ id: 'alice', email: 'evil@example.org' }, 409, 'user_exists', ['user_id']],
  ];
  for (const [json, status, message, details] of cases) {
    const r = await s.request('POST', '/user', { headers: h, json });
    assert.equal([r.status, r.json.message, r.json.details], [status, message, details], JSON.stringify(json));
  }
  assert.equal(
    (await sql(s, `SELECT email FROM user_emails WHERE user_id = 'alice'`)).map((r) => r.email),
    ['alice@example.org'],
  );
  // The security token is needed for a change made with the session cookie.
  const noToken = await s.request('POST', '/user', {
    headers: { Cookie: boss.cookie },
    json: { id: 'frank', email: 'f@example.org' },
  });
  assert.equal([noToken.status, noToken.json.message], [403, 'rest_security_token_did_not_match']);
});

test('reset a password: a new random one, shown once; the old one and the sessions stop working', async () => {
  await s.app.services.accounts.addUser('gina', ['gina@example.org'], 'gina password');
  const gina = await login(s, 'gina', 'gina password');
  const r = await s.request('POST', '/user/gina/password', { headers: withSession(boss), json: {} });
  assert.is(r.status, 200, r.text);
  assert.ok(r.json.password.length >= 12);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: gina.cookie } })).status, 401);
  assert.is((await s.request('POST', '/login', { json: { user_id: 'gina', password: 'gina password' } })).status, 401);
  await login(s, 'gina', r.json.password);
  const again = await s.request('POST', '/user/gina/password', { headers: withSession(boss), json: {} });
  assert.is.not(again.json.password, r.json.password);
  const unknown = await s.request('POST', '/user/nobody/password', { headers: withSession(boss), json: {} });
  assert.equal([unknown.status, unknown.json.message], [404, 'user_not_found']);
});

test('grant and withdraw admin; an admin may neither withdraw their own admin nor remove themselves', async () => {
  await s.app.services.accounts.addUser('hugo', ['hugo@example.org'], 'hugo password');
  const hugo = await login(s, 'hugo', 'hugo password');
  assert.is((await s.request('GET', '/transfer/@all', { headers: { Cookie: hugo.cookie } })).status, 403);
  assert.is(
    (await s.request('PUT', '/user/hugo/admin', { headers: withSession(boss), json: { admin: true } })).status,
    200,
  );
  assert.is((await s.request('GET', '/transfer/@all', { headers: { Cookie: hugo.cookie } })).status, 200);
  // Now an admin, hugo cannot withdraw his own grant, nor remove himself.
  const self = await s.request('PUT', '/user/hugo/admin', { headers: withSession(hugo), json: { admin: false } });
  assert.equal([self.status, self.json.message, self.json.details], [403, 'user_cannot_change_self', ['admin']]);
  const selfRemove = await s.request('DELETE', '/user/hugo', { headers: withSession(hugo) });
  assert.equal(
    [selfRemove.status, selfRemove.json.message, selfRemove.json.details],
    [403, 'user_cannot_change_self', ['user_id']],
  );
  assert.is(
    (await s.request('PUT', '/user/hugo/admin', { headers: withSession(boss), json: { admin: false } })).status,
    200,
  );
  assert.is((await s.request('GET', '/transfer/@all', { headers: { Cookie: hugo.cookie } })).status, 403);
  const bad = await s.request('PUT', '/user/hugo/admin', { headers: withSession(boss), json: { admin: 'yes' } });
  assert.equal([bad.status, bad.json.details], [400, ['admin']]);
  const unknown = await s.request('PUT', '/user/nobody/admin', { headers: withSession(boss), json: { admin: true } });
  assert.is(unknown.status, 404);
});

test('remove a user: no more login, sessions end, the grant of admin goes; their transfers stay until they expire', async () => {
  await s.app.services.accounts.addUser('ivan', ['ivan@example.org'], 'ivan password');
  await s.app.services.users.addAdmin('ivan');
  const ivan = await login(s, 'ivan', 'ivan password');
  const t = await s.request('POST', '/transfer', {
    headers: withSession(ivan),
    json: {
      files: [{ name: 'a', size: 3 }],
      recipients: ['r@example.org'],
      from: 'ivan@example.org',
      expires: inAWeek(),
    },
  });
  assert.is(t.status, 201, t.text);
  const r = await s.request('DELETE', '/user/ivan', { headers: withSession(boss) });
  assert.equal([r.status, r.json], [200, true]);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: ivan.cookie } })).status, 401);
  assert.is((await s.request('POST', '/login', { json: { user_id: 'ivan', password: 'ivan password' } })).status, 401);
  assert.equal(await sql(s, `SELECT user_id FROM admins WHERE user_id = 'ivan'`), []);
  const kept = await s.request('GET', `/transfer/${t.json.id}`, { headers: { Cookie: boss.cookie } });
  assert.equal([kept.status, kept.json.status], [200, 'started']);
  const again = await s.request('DELETE', '/user/ivan', { headers: withSession(boss) });
  assert.equal([again.status, again.json.message], [404, 'user_not_found']);
});

test('own password: current one required, the CLI rules, other sessions end and this one stays', async () => {
  await s.app.services.accounts.addUser('jo', ['jo@example.org'], 'jo password 1');
  const here = await login(s, 'jo', 'jo password 1');
  const elsewhere = await login(s, 'jo', 'jo password 1');
  const path = '/user/@me/password';
  const wrong = await s.request('PUT', path, {
    headers: withSession(here),
    json: { current_password: 'nope', password: 'jo password 2' },
  });
  assert.equal(
    [wrong.status, wrong.json.message, wrong.json.details],
    [403, 'user_password_incorrect', ['current_password']],
  );
  const short = await s.request('PUT', path, {
    headers: withSession(here),
    json: { current_password: 'jo password 1', password: 'short' },
  });
  assert.equal([short.status, short.json.message], [400, 'rest_bad_parameter']);
  assert.match(short.json.details[0], /at least 8/);
  const missing = await s.request('PUT', path, { headers: withSession(here), json: { password: 'jo password 2' } });
  assert.equal([missing.status, missing.json.details], [400, ['current_password']]);
  assert.is((await s.request('PUT', path, { json: { current_password: 'x', password: 'y' } })).status, 401);
  const ok = await s.request('PUT', path, {
    headers: withSession(here),
    json: { current_password: 'jo password 1', password: 'jo password 2' },
  });
  assert.equal([ok.status, ok.json], [200, true]);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: here.cookie } })).status, 200);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: elsewhere.cookie } })).status, 401);
  assert.is((await s.request('POST', '/login', { json: { user_id: 'jo', password: 'jo password 1' } })).status, 401);
  await login(s, 'jo', 'jo password 2');
});

test('storage: bytes used by the file store, free and total of its volume', async () => {
  const r = await s.request('GET', '/storage', { headers: { Cookie: boss.cookie } });
  assert.is(r.status, 200);
  assert.is(r.json.used, 0);
  // A bucket has no free space or size to report (FileStore.space); the filesystem's volume has both.
  if (TEST_STORAGE === 's3') assert.equal([r.json.free, r.json.total], [null, null], r.text);
  else assert.ok(r.json.free > 0 && r.json.total >= r.json.free, r.text);
  assert.equal([r.json.host_quota, typeof r.json.host_used], [0, 'number']);
});

test('usage: 30 days, transfers and bytes per day, top senders, a storage sample of today', async () => {
  const alice2 = await login(s, 'alice', 'alice password');
  for (const size of [1000, 2000]) {
    const t = await s.request('POST', '/transfer', {
      headers: withSession(alice2),
      json: transferBody({ files: [{ name: 'a', size }] }),
    });
    assert.is(t.status, 201);
  }
  const r = await s.request('GET', '/usage', { headers: { Cookie: boss.cookie } });
  assert.is(r.status, 200);
  assert.is(r.json.days.length, 30);
  const today = new Date().toISOString().slice(0, 10);
  const last = r.json.days[29];
  assert.is(last.day, today);
  assert.ok(last.transfers >= 2 && last.bytes >= 3000, JSON.stringify(last));
  assert.equal(
    r.json.top_senders.find((t: any) => t.user_id === 'alice'),
    { user_id: 'alice', transfers: 2, bytes: 3000 },
  );
  assert.equal(r.json.storage.at(-1), { day: today, bytes: 0 });
});

test('counts: the overview figures, counted on the database (one closed and one expired transfer are not live)', async () => {
  const counted = async () => (await s.request('GET', '/usage/counts', { headers: { Cookie: boss.cookie } })).json;
  const before = await counted();
  const made: number[] = [];
  for (const subject of ['live', 'closed', 'expired']) {
    const t = await s.request('POST', '/transfer', {
      headers: withSession(alice),
      json: {
        files: [{ name: `${subject}.bin`, size: 10 }],
        recipients: ['bob@example.org'],
        from: 'alice@example.org',
        subject,
        expires: inAWeek(),
      },
    });
    assert.is(t.status, 201, t.text);
    made.push(t.json.id);
  }
  await sql(s, `UPDATE transfers SET status = 'closed' WHERE id = ?`, made[1]);
  await sql(s, 'UPDATE transfers SET expires = 1000 WHERE id = ?', made[2]);
  const after = await counted();
  assert.equal(Object.keys(after).sort(), [
    'guests',
    'held_transfers',
    'live_transfers',
    'local_users',
    'transfers',
    'users',
  ]);
  assert.is(after.transfers - before.transfers, 3);
  assert.is(after.live_transfers - before.live_transfers, 1);
  const [{ n: users }] = await sql(s, 'SELECT COUNT(*) AS n FROM users');
  const [{ n: local }] = await sql(s, 'SELECT COUNT(*) AS n FROM local_accounts');
  assert.equal([after.users, after.local_users], [Number(users), Number(local)]);
  assert.equal(after.held_transfers, []);
});

test.run();
