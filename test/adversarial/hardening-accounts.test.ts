import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TestServer, TestResponse, sql } from '../helpers/server';
import { login, withSession } from '../helpers/session';
import { signedPath, nowS } from '../helpers/signing';
import { inAWeek } from '../helpers/upload-client';
import { assertErrorShape } from './fixture';

// Local accounts and what signs for them: the audit log mailed by a GET needs the session's security token,
// a new password ends the API secret, a user signing with their own secret sends only from their own
// addresses (a remote application may still set it), and an e-mail domain's labels are at most 63 characters.
const PASSWORD = 'correct horse battery';
let s: TestServer;
let host: string;
let portal: string;

test.before(async () => {
  s = await startTestServer({ auth: { sp: { type: 'local' } } });
  host = new URL(s.url).host;
  await s.app.services.accounts.addUser('alice', ['alice@example.org'], PASSWORD);
  await s.app.services.accounts.addUser('boss', ['boss@example.org'], PASSWORD);
  await s.app.services.users.addAdmin('boss');
  portal = await s.app.services.accounts.addRemoteApp('portal', false);
});
test.after(async () => {
  await s.close();
});

const draft = (from: string, recipients = ['r@example.org']) => ({
  files: [{ name: 'x.txt', size: 1 }],
  recipients,
  from,
  expires: inAWeek(),
});

/** A request signed the way filesender.py signs it: as the user with the user's own secret, or as an application. */
function signed(
  method: string,
  path: string,
  args: Record<string, string>,
  secret: string,
  json?: unknown,
): Promise<TestResponse> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  const p = signedPath({ method, host, path, args: { ...args, timestamp: nowS() }, secret, body });
  return s.request(method, p, { body, headers: body ? { 'content-type': 'application/json' } : {} });
}
const asUserWith = (secret: string, method: string, path: string, json?: unknown) =>
  signed(method, path, { remote_user: 'alice' }, secret, json);

test('GET /transfer/{id}/auditlog/mail with a session cookie: refused without the security token, sent with it', async () => {
  const a = await login(s, 'alice', PASSWORD);
  const t = await s.request('POST', '/transfer', { headers: withSession(a), json: draft('alice@example.org') });
  assert.is(t.status, 201, t.text);
  const queued = async () =>
    Number((await sql(s, "SELECT count(*) AS n FROM mail_queue WHERE to_addr LIKE '%alice@example.org%'"))[0].n);
  const before = await queued();
  // What a link or a top-level navigation from another site sends: the cookie alone.
  const bare = await s.request('GET', `/transfer/${t.json.id}/auditlog/mail`, { headers: { Cookie: a.cookie } });
  assert.equal([bare.status, bare.json?.message], [403, 'rest_security_token_did_not_match'], bare.text);
  assertErrorShape(bare, 'audit log mail without the token');
  const crossSite = await s.request('GET', `/transfer/${t.json.id}/auditlog/mail`, {
    headers: { ...withSession(a), 'Sec-Fetch-Site': 'cross-site' },
  });
  assert.is(crossSite.status, 403, crossSite.text);
  assert.is(await queued(), before, 'no mail was sent');
  const ok = await s.request('GET', `/transfer/${t.json.id}/auditlog/mail`, { headers: withSession(a) });
  assert.is(ok.status, 200, ok.text);
  assert.is(await queued(), before + 1);
});

test('a password change ends the API secret; the profile shows a new one that works', async () => {
  const old = await s.app.services.users.remoteSecret('alice');
  assert.is((await asUserWith(old, 'GET', '/user')).status, 200);
  const a = await login(s, 'alice', PASSWORD);
  const r = await s.request('PUT', '/user/@me/password', {
    headers: withSession(a),
    json: { current_password: PASSWORD, password: `${PASSWORD} 2` },
  });
  assert.is(r.status, 200, r.text);
  const refused = await asUserWith(old, 'GET', '/user');
  assert.is(refused.status, 401, `the old secret after the change: ${refused.text}`);
  assertErrorShape(refused, 'old secret');
  const me = await s.request('GET', '/user', { headers: withSession(a) });
  const fresh = String(me.json.remote_config).split('|')[2];
  assert.ok(fresh && fresh !== old, 'a new secret');
  assert.is((await asUserWith(fresh, 'GET', '/user')).status, 200);
  // An admin's reset of the password does the same.
  const b = await login(s, 'boss', PASSWORD);
  assert.is((await s.request('POST', '/user/alice/password', { headers: withSession(b), json: {} })).status, 200);
  assert.is((await asUserWith(fresh, 'GET', '/user')).status, 401, 'the secret after an admin reset');
});

test('a user signing with their own secret sends only from their own addresses; a remote application may set it', async () => {
  const secret = await s.app.services.users.remoteSecret('alice');
  const forged = await asUserWith(secret, 'POST', '/transfer', draft('ceo@bank.example'));
  assert.equal([forged.status, forged.json?.message, forged.json?.details], [400, 'bad_email', ['from']], forged.text);
  const guest = await asUserWith(secret, 'POST', '/guest', {
    recipient: 'g@example.org',
    from: 'ceo@bank.example',
    options: [],
  });
  assert.equal([guest.status, guest.json?.message], [400, 'bad_email'], guest.text);
  const own = await asUserWith(secret, 'POST', '/transfer', draft('ALICE@example.org'));
  assert.is(own.status, 201, own.text);
  const app = await signed(
    'POST',
    '/transfer',
    { remote_application: 'portal', remote_user: 'alice' },
    portal,
    draft('noreply@portal.example'),
  );
  assert.is(app.status, 201, app.text);
  assert.is(app.json.user_email, 'noreply@portal.example');
});

test('an e-mail domain label of 64 characters is refused, 63 is accepted', async () => {
  const a = await login(s, 'boss', PASSWORD); // alice's password was reset above
  const label = (n: number) => `${'a'.repeat(n - 1)}b`;
  const long = await s.request('POST', '/transfer', {
    headers: withSession(a),
    json: draft('boss@example.org', [`r@${label(64)}.example`]),
  });
  assert.equal([long.status, long.json?.message], [400, 'bad_email'], long.text);
  const inner = await s.request('POST', '/transfer', {
    headers: withSession(a),
    json: draft('boss@example.org', [`r@x.${label(64)}`]),
  });
  assert.equal([inner.status, inner.json?.message], [400, 'bad_email'], inner.text);
  const ok = await s.request('POST', '/transfer', {
    headers: withSession(a),
    json: draft('boss@example.org', [`r@${label(63)}.example`]),
  });
  assert.is(ok.status, 201, ok.text);
});

test('login throttle: wrong passwords from elsewhere lock the account, but not the browser its owner signed in with before', async () => {
  await s.app.services.accounts.addUser('carol', ['carol@example.org'], PASSWORD);
  await s.app.services.accounts.addUser('dave', ['dave@example.org'], PASSWORD);
  const attempt = (user: string, password: string, from: string, device?: string) =>
    s.request('POST', '/login', {
      json: { user_id: user, password },
      headers: { 'X-Forwarded-For': from, ...(device ? { Cookie: device } : {}) },
    });
  const deviceOf = (r: TestResponse) => /ferry_device=[0-9a-f]{64}/.exec(r.headers.get('set-cookie') ?? '')?.[0];
  // carol signs in from her browser once: it gets a device cookie (HttpOnly, like the session's).
  const first = await attempt('carol', PASSWORD, '198.51.100.7');
  assert.is(first.status, 200, first.text);
  const device = deviceOf(first);
  assert.ok(device, first.headers.get('set-cookie') ?? '');
  assert.match(
    first.headers.get('set-cookie')!,
    /ferry_device=[0-9a-f]{64}; path=\/; expires=[^;]+; samesite=lax; httponly/i,
  );
  const daves = deviceOf(await attempt('dave', PASSWORD, '198.51.100.8'));
  // Someone else runs up the account's failures.
  for (let i = 0; i < 5; i++) assert.is((await attempt('carol', `wrong ${i}`, '203.0.113.5')).status, 401);
  const locked = await attempt('carol', PASSWORD, '203.0.113.5');
  assert.equal(
    [locked.status, locked.json?.message],
    [429, 'rate_limit_exceeded'],
    'the right password from an unknown browser waits',
  );
  assert.ok(Number(locked.headers.get('retry-after')) > 0);
  assertErrorShape(locked, 'locked');
  // Not by address: carol's own address without her browser's cookie is an unknown browser too.
  assert.is((await attempt('carol', PASSWORD, '198.51.100.7')).status, 429);
  // Neither a made-up device cookie nor another account's opens it.
  assert.is((await attempt('carol', PASSWORD, '203.0.113.5', `ferry_device=${'ab'.repeat(32)}`)).status, 429);
  assert.is((await attempt('carol', PASSWORD, '203.0.113.5', daves)).status, 429);
  // Her browser gets in.
  const mine = await attempt('carol', PASSWORD, '198.51.100.7', device);
  assert.is(mine.status, 200, mine.text);
  // That browser is throttled by its own failures: five, then it waits too.
  for (let i = 0; i < 5; i++) assert.is((await attempt('carol', `oops ${i}`, '198.51.100.7', device)).status, 401);
  assert.is((await attempt('carol', PASSWORD, '198.51.100.7', device)).status, 429);
});

test.run();
