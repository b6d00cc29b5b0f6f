import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { capturingLogger } from '../helpers/session';
import { sendWithProfileIni } from '../helpers/api-string';
import { startDirectory, type TestDirectory } from '../helpers/system/slapd';

// LDAP against a real OpenLDAP (Debian's slapd, started here in a temp dir): both modes (search then bind with a
// service account; direct bind from a DN template), ldaps:// and StartTLS with a CA file, admins by group, the
// login throttle, LDAP injection in the user name, a directory that is down (503, a local admin still signs in).
let dir: TestDirectory;
let s: TestServer;
const logged = capturingLogger();

test.before(async () => {
  dir = await startDirectory(
    [
      { uid: 'alice', password: 'alice pw 1', mail: 'alice@example.org', cn: 'Alice Example' },
      { uid: 'boss', password: 'boss pw 1', mail: 'boss@example.org', cn: 'The Boss' },
      { uid: 'nomail', password: 'nomail pw 1', cn: 'No Mail' },
      { uid: 'carol', password: 'carol pw 1', mail: 'carol@example.org', cn: 'Carol' },
    ],
    { 'ferry-admins': ['boss'] },
  );
  s = await startTestServer(
    {
      auth: {
        sp: [
          {
            type: 'ldap',
            id: 'dir',
            label: 'Directory',
            url: dir.url,
            bind_dn: dir.bindDn,
            bind_password: dir.bindPassword,
            user_base: `ou=people,${dir.suffix}`,
            admin_groups: [`cn=ferry-admins,ou=groups,${dir.suffix}`],
            timeout_s: 2,
          },
          { type: 'local' },
        ],
      },
    },
    { log: logged.log },
  );
  await s.app.services.accounts.addUser('localadmin', ['localadmin@example.org'], 'local admin password');
});
test.after(async () => {
  await s.close();
  await dir.close();
});

const signIn = (user: string, password: string, server = s, provider = 'dir') =>
  server.request('POST', `/login/${provider}`, { json: { user_id: user, password } });

test("login (search then bind): the person becomes a ferry user with the directory's mail and name", async () => {
  const r = await signIn('alice', 'alice pw 1');
  assert.is(r.status, 200, r.text);
  const cookie = r.headers.get('set-cookie')!.split(';')[0];
  const me = await s.request('GET', '/user', { headers: { Cookie: cookie } });
  assert.is(me.json.id, 'alice');
  assert.equal(me.json.email, ['alice@example.org']);
  assert.is((await s.request('GET', '/usage', { headers: { Cookie: cookie } })).status, 403);
  assert.is(
    (await s.app.db.query<{ display_name: string }>("SELECT display_name FROM users WHERE id = 'alice'"))[0]
      .display_name,
    'Alice Example',
  );
  assert.not.ok(logged.lines.join('\n').includes(dir.bindPassword));
  assert.not.ok(logged.lines.join('\n').includes('alice pw 1'));
});

test("the login page shows the directory's form beside the local one", async () => {
  const page = await s.request('GET', '/login', { headers: { Accept: 'text/html' } });
  assert.match(page.text, /action="\/login\/dir" data-provider="dir">\n<h2>Directory<\/h2>/);
  assert.match(page.text, /id="login-user-local"/);
});

test('wrong password and unknown user: the same 401; the browser form comes back saying so', async () => {
  const wrong = await signIn('boss', 'not it');
  const unknown = await signIn('nobody', 'not it');
  assert.is(wrong.status, 401);
  assert.is(unknown.status, 401);
  assert.is(wrong.json.message, 'rest_authentication_required');
  const form = await s.request('POST', '/login/dir', {
    body: 'user_id=boss&password=nope&return=%2F',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.is(form.status, 303);
  assert.is(form.headers.get('location'), '/login?failed=1&provider=dir&return=%2F');
});

test('group membership makes an admin', async () => {
  const r = await signIn('boss', 'boss pw 1');
  assert.is(r.status, 200);
  const cookie = r.headers.get('set-cookie')!.split(';')[0];
  assert.is((await s.request('GET', '/usage', { headers: { Cookie: cookie } })).status, 200);
});

test('LDAP injection in the user name ("*)(uid=*" and friends) matches no one', async () => {
  for (const name of ['*)(uid=*', '*', 'alice)(|(uid=*', 'al*', '*)(|(objectClass=*)', 'alice\\2a']) {
    const r = await signIn(name, 'alice pw 1');
    assert.is(r.status, 401, `${name}: ${r.text}`);
  }
  // The bound service account's search saw the name escaped: still exactly one alice.
  assert.is((await signIn('alice', 'alice pw 1')).status, 200);
});

test('an entry without mail: a clear refusal, no session', async () => {
  const r = await signIn('nomail', 'nomail pw 1');
  assert.is(r.status, 403);
  assert.is(r.json.message, 'rest_access_forbidden');
  assert.equal(r.json.details, ['email']);
});

test('the login throttle applies to directory accounts', async () => {
  for (let i = 0; i < 5; i++) assert.is((await signIn('carol', `wrong ${i}`)).status, 401);
  const sixth = await signIn('carol', 'carol pw 1');
  assert.is(sixth.status, 429);
  assert.ok(Number(sixth.headers.get('retry-after')) > 0);
});

test('the API string from the profile drives filesender.py for a directory user', async () => {
  const r = await signIn('alice', 'alice pw 1');
  const cookie = r.headers.get('set-cookie')!.split(';')[0];
  const t = await sendWithProfileIni(s, cookie, 'alice@example.org');
  assert.is((await s.request('GET', `/transfer/${t.id}`, { headers: { Cookie: cookie } })).json.status, 'available');
});

test('direct bind from a DN template, over StartTLS and over ldaps:// with the CA file', async () => {
  for (const transport of [
    { url: dir.url.replace('127.0.0.1', 'localhost'), start_tls: true },
    { url: dir.ldapsUrl },
  ]) {
    const t = await startTestServer({
      auth: {
        sp: {
          type: 'ldap',
          id: 'ad',
          url: transport.url,
          start_tls: transport.start_tls ?? false,
          ca_file: dir.caFile,
          user_dn_template: `uid={uid},ou=people,${dir.suffix}`,
          admin_groups: [`cn=ferry-admins,ou=groups,${dir.suffix}`],
          timeout_s: 3,
        },
      },
    });
    try {
      const ok = await signIn('boss', 'boss pw 1', t, 'ad');
      assert.is(ok.status, 200, `${transport.url}: ${ok.text}`);
      const cookie = ok.headers.get('set-cookie')!.split(';')[0];
      assert.is((await t.request('GET', '/usage', { headers: { Cookie: cookie } })).status, 200);
      assert.is((await signIn('boss', 'wrong', t, 'ad')).status, 401);
      assert.is((await signIn('*)(uid=*', 'boss pw 1', t, 'ad')).status, 401);
    } finally {
      await t.close();
    }
  }
});

test('a directory that is down: 503 with a clear message within the timeout, one log line; a local admin still signs in', async () => {
  await dir.stop();
  try {
    const before = logged.lines.length;
    const started = Date.now();
    const r = await signIn('alice', 'alice pw 1');
    assert.is(r.status, 503, r.text);
    assert.is(r.json.message, 'login_provider_unavailable');
    assert.ok(r.headers.get('retry-after'));
    assert.ok(Date.now() - started < 10_000);
    assert.is(
      logged.lines.slice(before).filter((l) => l.includes('did not answer')).length,
      1,
      logged.lines.slice(before).join('\n'),
    );
    const form = await s.request('POST', '/login/dir', {
      body: 'user_id=alice&password=x&return=%2F',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.is(form.headers.get('location'), '/login?unavailable=1&provider=dir&return=%2F');
    const page = await s.request('GET', '/login?unavailable=1&provider=dir', { headers: { Accept: 'text/html' } });
    assert.match(page.text, /The directory cannot be reached right now/);
    assert.is((await signIn('localadmin', 'local admin password', s, 'local')).status, 200);
    // Attempts the directory could not judge are not counted against the account.
    for (let i = 0; i < 6; i++) assert.is((await signIn('alice', 'alice pw 1')).status, 503);
  } finally {
    await dir.start();
  }
  assert.is((await signIn('alice', 'alice pw 1')).status, 200);
});

test.run();
