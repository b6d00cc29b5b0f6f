import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TestServer, request } from '../helpers/server';
import { signedPath, nowS } from '../helpers/signing';
import { inAWeek } from '../helpers/upload-client';
import { runCli } from '../../src/cli/program';

let s: TestServer;
let host: string;
let appSecret: string;
let adminAppSecret: string;

test.before(async () => {
  s = await startTestServer({ admin: ['root'], auth: { sp: { type: 'local' } } });
  host = new URL(s.url).host;
  await s.app.services.accounts.addUser('alice', ['alice@example.org', 'a.l@example.org'], 'correct horse');
  await s.app.services.accounts.addUser('bob', ['bob@example.org'], 'battery staple');
  await s.app.services.accounts.addUser('root', ['root@example.org'], 'rootpassword');
  appSecret = s.app.services.accounts.addRemoteApp('portal', false);
  adminAppSecret = s.app.services.accounts.addRemoteApp('ops', true);
});
test.after(() => s.close());

async function login(user: string, password: string) {
  const r = await s.request('POST', '/login', { json: { user_id: user, password } });
  assert.is(r.status, 200, r.text);
  const cookie = r.headers.get('set-cookie')!;
  return { cookie: cookie.split(';')[0], csrf: r.json.csrf_token as string, setCookie: cookie };
}

test('local login: HttpOnly SameSite cookie, the session authenticates, wrong passwords are refused', async () => {
  const a = await login('alice', 'correct horse');
  assert.match(a.setCookie, /HttpOnly/i);
  assert.match(a.setCookie, /SameSite=Lax/i);
  assert.not.match(a.setCookie, /Secure/i); // base_url is http here
  const me = await s.request('GET', '/user', { headers: { Cookie: a.cookie } });
  assert.is(me.status, 200);
  assert.is(me.json.id, 'alice');
  const bad = await s.request('POST', '/login', { json: { user_id: 'alice', password: 'wrong' } });
  assert.is(bad.status, 401);
  assert.is(bad.json.message, 'rest_authentication_required');
  const form = await s.request('POST', '/login', { body: 'user_id=alice&password=correct+horse&return=%2F%3Fs%3Dtransfers', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.is(form.status, 303);
  assert.is(form.headers.get('location'), '/?s=transfers');
  const evil = await s.request('POST', '/login', { body: 'user_id=alice&password=correct+horse&return=%2F%2Fevil.example', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.is(evil.headers.get('location'), '/');
});

test('CSRF: a cookie-authenticated change needs the security token', async () => {
  const a = await login('alice', 'correct horse');
  const body = { json: { lang: 'fr' } };
  const none = await s.request('PUT', '/user', { ...body, headers: { Cookie: a.cookie } });
  assert.is(none.status, 403);
  assert.is(none.json.message, 'rest_security_token_did_not_match');
  const wrong = await s.request('PUT', '/user', { ...body, headers: { Cookie: a.cookie, 'X-Ferry-Security-Token': 'nope' } });
  assert.is(wrong.status, 403);
  const ok = await s.request('PUT', '/user', { ...body, headers: { Cookie: a.cookie, 'X-Ferry-Security-Token': a.csrf } });
  assert.is(ok.status, 200);
  assert.is(ok.json, true);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: a.cookie } })).json.lang, 'fr');
  const badLang = await s.request('PUT', '/user', { json: { lang: 'xx' }, headers: { Cookie: a.cookie, 'X-Ferry-Security-Token': a.csrf } });
  assert.is(badLang.json.message, 'bad_lang_code');
  const out = await s.request('POST', '/logout', { headers: { Cookie: a.cookie, 'X-Ferry-Security-Token': a.csrf } });
  assert.is(out.status, 200);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: a.cookie } })).status, 401);
});

test('login throttle: the sixth wrong password in a row answers 429 with Retry-After', async () => {
  for (let i = 0; i < 5; i++) assert.is((await s.request('POST', '/login', { json: { user_id: 'bob', password: 'x' } })).status, 401);
  const r = await s.request('POST', '/login', { json: { user_id: 'bob', password: 'battery staple' } });
  assert.is(r.status, 429);
  assert.is(r.json.message, 'rate_limit_exceeded');
  assert.ok(Number(r.headers.get('retry-after')) > 0);
});

test('access levels: public, users, admin, owner', async () => {
  const a = await login('alice', 'correct horse');
  const root = await login('root', 'rootpassword');
  assert.is((await s.request('GET', '/info')).status, 200);
  assert.is((await s.request('GET', '/user')).json.message, 'rest_authentication_required');
  assert.is((await s.request('GET', '/user/bob', { headers: { Cookie: a.cookie } })).json.message, 'rest_admin_required');
  const asAdmin = await s.request('GET', '/user/bob', { headers: { Cookie: root.cookie } });
  assert.is(asAdmin.status, 200);
  assert.is(asAdmin.json.id, 'bob');
  for (const k of ['id', 'additional_attributes', 'aup_ticked', 'transfer_preferences', 'guest_preferences', 'created', 'last_activity', 'lang', 'frequent_recipients', 'remote_config']) assert.ok(k in asAdmin.json, k);
  assert.is((await s.request('PUT', '/config', { json: { max_transfer_files: 3 }, headers: { Cookie: a.cookie, 'X-Ferry-Security-Token': a.csrf } })).status, 403);
  const cfg = await s.request('PUT', '/config', { json: { max_transfer_files: 3 }, headers: { Cookie: root.cookie, 'X-Ferry-Security-Token': root.csrf } });
  assert.is(cfg.status, 200);
  assert.is(s.app.services.settings.get().max_transfer_files, 3);
  const refused = await s.request('PUT', '/config', { json: { data_dir: '/tmp' }, headers: { Cookie: root.cookie, 'X-Ferry-Security-Token': root.csrf } });
  assert.is(refused.status, 400);
  assert.equal(refused.json.details, ['data_dir']);
  await s.request('PUT', '/config', { json: { max_transfer_files: 30 }, headers: { Cookie: root.cookie, 'X-Ferry-Security-Token': root.csrf } });
  // owner: alice's Transfer is hidden from bob, visible to root
  const t = await s.request('POST', '/transfer', {
    json: { files: [{ name: 'x', size: 1 }], recipients: ['r@example.org'], from: 'a.l@example.org', expires: inAWeek() },
    headers: { Cookie: a.cookie, 'X-Ferry-Security-Token': a.csrf },
  });
  assert.is(t.status, 201, t.text);
  const b = await login('bob2', 'x').catch(() => null);
  assert.is(b, null);
  const bobPath = signedPath({ method: 'GET', host, path: `/transfer/${t.json.id}`, args: { remote_application: 'portal', remote_user: 'bob', timestamp: nowS() }, secret: appSecret });
  assert.is((await s.request('GET', bobPath)).status, 404);
  assert.is((await s.request('GET', `/transfer/${t.json.id}`, { headers: { Cookie: root.cookie } })).status, 200);
});

test('remote application: signed requests, acting as a user or as itself; echo tells the truth', async () => {
  const asUser = signedPath({ method: 'GET', host, path: '/echo', args: { remote_application: 'portal', remote_user: 'carol', timestamp: nowS() }, secret: appSecret });
  const r = await s.request('GET', asUser);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.user, 'carol');
  assert.is(r.json.auth.remote, true);
  const itself = signedPath({ method: 'GET', host, path: '/transfer/@all', args: { remote_application: 'portal', timestamp: nowS() }, secret: appSecret });
  assert.is((await s.request('GET', itself)).json.message, 'rest_admin_required');
  const asAdminApp = signedPath({ method: 'GET', host, path: '/transfer/@all', args: { remote_application: 'ops', timestamp: nowS() }, secret: adminAppSecret });
  assert.is((await s.request('GET', asAdminApp)).status, 200);
  const unknown = signedPath({ method: 'GET', host, path: '/echo', args: { remote_application: 'nobody', timestamp: nowS() }, secret: appSecret });
  assert.is((await s.request('GET', unknown)).json.message, 'auth_remote_unknown_application');
});

test('signature tampering: method, path, query, body, timestamp each changed → 401', async () => {
  const body = JSON.stringify({ recipient: 'guest@example.org', from: 'x@example.org' });
  const args = { remote_application: 'portal', remote_user: 'dave', timestamp: nowS() };
  const good = signedPath({ method: 'POST', host, path: '/echo', args, secret: appSecret, body });
  const post = (p: string, b = body, method = 'POST') => s.request(method, p, { body: b, headers: { 'content-type': 'application/json' } });
  assert.is((await post(good)).status, 200);
  const fresh = () => signedPath({ method: 'POST', host, path: '/echo', args: { ...args, timestamp: nowS() + 1 }, secret: appSecret, body });
  assert.is((await post(fresh(), body, 'PUT')).json.message, 'auth_remote_signature_check_failed');
  assert.is((await post(fresh().replace('/echo', '/echo/x'))).json.message, 'auth_remote_signature_check_failed');
  assert.is((await post(fresh().replace('remote_user=dave', 'remote_user=eve'))).json.message, 'auth_remote_signature_check_failed');
  assert.is((await post(fresh(), body.replace('guest', 'other'))).json.message, 'auth_remote_signature_check_failed');
  const ts = fresh().match(/timestamp=(\d+)/)![1];
  assert.is((await post(fresh().replace(`timestamp=${ts}`, `timestamp=${Number(ts) + 1}`))).json.message, 'auth_remote_signature_check_failed');
});

test('timestamps: stale refused, a little ahead accepted, far future refused; exact replays refused', async () => {
  const at = (ts: number, method = 'GET') => signedPath({ method, host, path: '/echo', args: { remote_application: 'portal', remote_user: 'x', timestamp: ts }, secret: appSecret });
  assert.is((await s.request('GET', at(nowS() - 60))).json.message, 'auth_remote_too_late');
  assert.is((await s.request('GET', at(nowS() + 3600))).status, 200);
  assert.is((await s.request('GET', at(nowS() + 2 * 86400))).json.message, 'auth_remote_too_late');
  const once = at(nowS(), 'POST');
  assert.is((await s.request('POST', once)).status, 200);
  const again = await s.request('POST', once);
  assert.is(again.status, 401);
  assert.equal(again.json.details, ['replay']);
});

test('host variants: with port, without port, and base_url', async () => {
  const noPort = host.replace(/:\d+$/, '');
  for (const h of [host, noPort]) {
    const p = signedPath({ method: 'GET', host: h, path: '/echo', args: { remote_application: 'portal', remote_user: 'hv', timestamp: nowS() }, secret: appSecret });
    assert.is((await s.request('GET', p)).status, 200, h);
  }
  const viaAlias = signedPath({ method: 'GET', host, path: '/rest.php/echo', args: { remote_application: 'portal', remote_user: 'hv', timestamp: nowS() }, secret: appSecret });
  assert.is((await s.request('GET', viaAlias)).status, 200);
  const wrongHost = signedPath({ method: 'GET', host: 'evil.example', path: '/echo', args: { remote_application: 'portal', remote_user: 'hv', timestamp: nowS() }, secret: appSecret });
  assert.is((await s.request('GET', wrongHost)).status, 401);
});

test('rotation: without grace the old secret stops at once; with grace both work', async () => {
  const name = 'rot';
  const first = s.app.services.accounts.addRemoteApp(name, false);
  const call = (secret: string) => s.request('GET', signedPath({ method: 'GET', host, path: '/echo', args: { remote_application: name, timestamp: nowS() }, secret }));
  const second = s.app.services.accounts.rotateRemoteApp(name, 0).secret;
  assert.is((await call(first)).status, 401);
  assert.is((await call(second)).status, 200);
  const third = s.app.services.accounts.rotateRemoteApp(name, 600).secret;
  assert.is((await call(second)).status, 200);
  assert.is((await call(third)).status, 200);
});

test('remote user: remote_config from GET /user, signing with it; rotation replaces it', async () => {
  const a = await login('alice', 'correct horse');
  const cfg = (await s.request('GET', '/user', { headers: { Cookie: a.cookie } })).json.remote_config as string;
  const [base, uid, secret] = cfg.split('|');
  assert.is(base, `${s.url}/`);
  assert.is(uid, 'alice');
  const p = () => signedPath({ method: 'GET', host, path: '/user', args: { remote_user: 'alice', timestamp: nowS() }, secret });
  const me = await s.request('GET', p());
  assert.is(me.status, 200, me.text);
  assert.is(me.json.id, 'alice');
  await s.request('PUT', '/user', { json: { secret_rotate: true }, headers: { Cookie: a.cookie, 'X-Ferry-Security-Token': a.csrf } });
  assert.is((await s.request('GET', p())).json.message, 'auth_remote_signature_check_failed');
});

test('header SP: headers count only from trusted proxies', async () => {
  const trusted = await startTestServer({ auth: { sp: { type: 'header', uid_header: 'X-Remote-User', email_header: 'X-Remote-Email', trusted_proxies: ['127.0.0.1', '::1'] } } });
  const untrusted = await startTestServer({ auth: { sp: { type: 'header', uid_header: 'X-Remote-User', email_header: 'X-Remote-Email', trusted_proxies: ['10.9.9.9'] } } });
  try {
    const h = { 'X-Remote-User': 'proxyuser', 'X-Remote-Email': 'p@example.org' };
    assert.is((await request(trusted.url, 'GET', '/user', { headers: h })).json.id, 'proxyuser');
    assert.is((await request(untrusted.url, 'GET', '/user', { headers: h })).status, 401);
  } finally {
    await trusted.close();
    await untrusted.close();
  }
});

test('a guest token is evaluated first and wins over a session; bad and expired tokens are refused', async () => {
  const a = await login('alice', 'correct horse');
  const g = await s.request('POST', '/guest', { json: { recipient: 'g@example.org', from: 'alice@example.org' }, headers: { Cookie: a.cookie, 'X-Ferry-Security-Token': a.csrf } });
  assert.is(g.status, 201, g.text);
  const echo = await s.request('GET', `/echo?vid=${g.json.token}`, { headers: { Cookie: a.cookie } });
  assert.is(echo.json.auth.type, 'guest');
  assert.is(echo.json.user, null);
  assert.is((await s.request('GET', `/echo?vid=${'f'.repeat(40)}`)).json.message, 'guest_token_invalid');
  s.app.db.prepare('UPDATE guests SET expires = ? WHERE id = ?').run(nowS() - 10, g.json.id);
  const expired = await s.request('GET', `/echo?vid=${g.json.token}`);
  assert.is(expired.status, 410);
  assert.is(expired.json.message, 'guest_expired');
});

test('CLI: accounts, admins and remote applications, while the server runs on the same database', async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const cfg = path.join(s.dir, 'ferry.json');
  fs.writeFileSync(cfg, JSON.stringify({ data_dir: path.join(s.dir, 'data'), mail: { transport: null } }));
  const out: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(`ERR ${t}`), readStdin: async () => 'a long password\n' };
  assert.is(await runCli(['user', 'add', 'erin', '--email', 'erin@example.org', '--password-stdin', '-c', cfg], io), 0, out.join('\n'));
  assert.is((await s.request('POST', '/login', { json: { user_id: 'erin', password: 'a long password' } })).status, 200);
  assert.is(await runCli(['admin', 'add', 'erin', '-c', cfg], io), 0);
  const erin = await login('erin', 'a long password');
  assert.is((await s.request('GET', '/user/alice', { headers: { Cookie: erin.cookie } })).status, 200);
  out.length = 0;
  assert.is(await runCli(['remote-app', 'add', 'cli-app', '--json', '-c', cfg], io), 0);
  const created = JSON.parse(out[out.length - 1]);
  assert.is(created.name, 'cli-app');
  const ok = await s.request('GET', signedPath({ method: 'GET', host, path: '/echo', args: { remote_application: 'cli-app', timestamp: nowS() }, secret: created.secret }));
  assert.is(ok.status, 200);
  out.length = 0;
  assert.is(await runCli(['remote-app', 'rotate', 'cli-app', '-c', cfg], io), 0);
  const rotated = out.join('\n').trim().split('\n').pop()!;
  assert.match(rotated, /^[0-9a-f]{64}$/);
  assert.is((await s.request('GET', signedPath({ method: 'GET', host, path: '/echo', args: { remote_application: 'cli-app', timestamp: nowS() }, secret: created.secret }))).status, 401);
  assert.is(await runCli(['admin', 'remove', 'nobody', '-c', cfg], io), 1);
  assert.is(await runCli(['user', 'remove', 'erin', '-c', cfg], io), 0);
  assert.is((await s.request('POST', '/login', { json: { user_id: 'erin', password: 'a long password' } })).status, 401);
});

test('a signed chunk upload: the signature covers the chunk bytes', async () => {
  const args = () => ({ remote_application: 'portal', remote_user: 'uploader', timestamp: nowS() });
  const create = signedPath({ method: 'POST', host, path: '/transfer', args: args(), secret: appSecret, body: JSON.stringify({ files: [{ name: 'c.bin', size: 6 }], recipients: ['r@example.org'], from: 'up@example.org', expires: inAWeek() }) });
  const t = await s.request('POST', create, { body: JSON.stringify({ files: [{ name: 'c.bin', size: 6 }], recipients: ['r@example.org'], from: 'up@example.org', expires: inAWeek() }), headers: { 'content-type': 'application/json' } });
  assert.is(t.status, 201, t.text);
  const fileId = t.json.files[0].id;
  const chunk = Buffer.from('abcdef');
  const put = signedPath({ method: 'PUT', host, path: `/file/${fileId}/chunk/0`, args: args(), secret: appSecret, body: chunk });
  const tampered = await s.request('PUT', put, { body: Buffer.from('abcdeX'), headers: { 'content-type': 'application/octet-stream' } });
  assert.is(tampered.status, 401);
  assert.is(tampered.json.message, 'auth_remote_signature_check_failed');
  const ok = await s.request('PUT', put, { body: chunk, headers: { 'content-type': 'application/octet-stream' } });
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.json.received, 6);
});

test('first start with the local service provider: an admin account with a password printed once', async () => {
  const { startServe } = await import('../../src/cli/serve');
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { tempDir } = await import('../helpers/server');
  const dir = tempDir();
  const cfg = path.join(dir, 'ferry.json');
  fs.writeFileSync(cfg, JSON.stringify({ data_dir: path.join(dir, 'data'), mail: { transport: null }, purge_interval_s: 0 }));
  const out: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), readStdin: async () => '' };
  const first = await startServe({ config: cfg, port: '0', host: '127.0.0.1' }, io);
  const line = out.find((l) => l.includes('created the first account'))!;
  assert.ok(line, out.join('\n'));
  const password = /password (\S+)/.exec(line)![1];
  const login = await request(first.url, 'POST', '/login', { json: { user_id: 'admin', password } });
  assert.is(login.status, 200);
  const cookie = login.headers.get('set-cookie')!.split(';')[0];
  assert.is((await request(first.url, 'GET', '/transfer/@all', { headers: { Cookie: cookie } })).status, 200); // an admin
  await first.stop();
  out.length = 0;
  const second = await startServe({ config: cfg, port: '0', host: '127.0.0.1' }, io);
  assert.not.ok(out.some((l) => l.includes('created the first account')), 'printed once only');
  await second.stop();
});

test.run();
