import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { startTestServer, withTestServer, TestServer, HEADER_SP, sql } from '../helpers/server';
import { capturingLogger, login, movableClock, withSession } from '../helpers/session';
import { clientAddress } from '../../src/auth/client-address';

// Service provider "local": accounts, the login form and JSON login, the session cookie and its lifetimes,
// the security token, the Origin check and the login throttle.
let s: TestServer;
const time = movableClock();
const logged = capturingLogger();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

test.before(async () => {
  s = await startTestServer({ auth: { sp: { type: 'local' } } }, { clock: time.clock, log: logged.log });
  await s.app.services.accounts.addUser('alice', ['alice@example.org', 'a.l@example.org'], 'correct horse');
  await s.app.services.accounts.addUser('bob', ['bob@example.org'], 'battery staple');
  await s.app.services.accounts.addUser('carol', ['carol@example.org'], 'carol password');
});
test.after(() => s.close());

test('JSON login: an HttpOnly SameSite=Lax cookie (not Secure over http), the security token, and a working session', async () => {
  const a = await login(s, 'alice', 'correct horse');
  assert.match(a.setCookie, /^ferry_session=[A-Za-z0-9_-]{40,}/);
  assert.match(a.setCookie, /httponly/i);
  assert.match(a.setCookie, /samesite=lax/i);
  assert.match(a.setCookie, /path=\//i);
  assert.not.match(a.setCookie, /secure/i);
  assert.match(a.csrf, /^[A-Za-z0-9_-]{32}$/);
  const me = await s.request('GET', '/user', { headers: { Cookie: a.cookie } });
  assert.is(me.status, 200);
  assert.is(me.json.id, 'alice');
  assert.equal(me.json.email, ['alice@example.org', 'a.l@example.org']);
  // Only a hash of the token is stored: the cookie's value is nowhere in the database.
  const token = a.cookie.split('=')[1];
  const rows = (await sql(s, 'SELECT id FROM sessions')) as { id: string }[];
  assert.ok(rows.length > 0);
  assert.not.ok(rows.some((r) => r.id.includes(token) || token.includes(r.id)));
});

test('the page gets the security token in its meta element', async () => {
  const a = await login(s, 'alice', 'correct horse');
  const page = await s.request('GET', '/?s=transfers', { headers: { Cookie: a.cookie } });
  assert.ok(page.text.includes(`<meta name="ferry-security-token" content="${a.csrf}">`));
  const anon = await s.request('GET', '/login');
  assert.ok(anon.text.includes('<meta name="ferry-security-token" content="">'));
});

test('wrong or missing credentials: 401 rest_authentication_required alike for a wrong password and an unknown user; 400 for missing fields', async () => {
  for (const [user, pw] of [
    ['alice', 'wrong horse'],
    ['nobody', 'correct horse'],
  ]) {
    const r = await s.request('POST', '/login', { json: { user_id: user, password: pw } });
    assert.is(r.status, 401);
    assert.is(r.json.message, 'rest_authentication_required');
    assert.is(r.headers.get('set-cookie'), null);
  }
  const missing = await s.request('POST', '/login', { json: { user_id: 'alice' } });
  assert.is(missing.status, 400);
  assert.is(missing.json.message, 'rest_missing_parameter');
  assert.equal(missing.json.details, ['password']);
});

test('form login: 303 to the page asked for (same site only); a wrong password back to the form', async () => {
  const ok = await s.request('POST', '/login', {
    body: 'user_id=bob&password=battery+staple&return=%2F%3Fs%3Dtransfers',
    headers: FORM,
  });
  assert.is(ok.status, 303);
  assert.is(ok.headers.get('location'), '/?s=transfers');
  const cookie = ok.headers.get('set-cookie')!.split(';')[0];
  assert.is((await s.request('GET', '/user', { headers: { Cookie: cookie } })).json.id, 'bob');
  for (const evil of [
    '%2F%2Fevil.example',
    'https%3A%2F%2Fevil.example',
    '%2F%5Cevil.example',
    'javascript%3Aalert(1)',
  ]) {
    const r = await s.request('POST', '/login', {
      body: `user_id=bob&password=battery+staple&return=${evil}`,
      headers: FORM,
    });
    assert.is(r.headers.get('location'), '/', evil);
  }
  const bad = await s.request('POST', '/login', {
    body: 'user_id=bob&password=nope&return=%2F%3Fs%3Dguests',
    headers: FORM,
  });
  assert.is(bad.status, 303);
  assert.is(bad.headers.get('location'), '/login?failed=1&return=%2F%3Fs%3Dguests');
});

test('security token: a cookie-authenticated POST, PUT or DELETE without it or with a wrong one is refused (403)', async () => {
  const a = await login(s, 'alice', 'correct horse');
  const t = await s.request('POST', '/transfer', {
    json: transferBody({ files: [{ name: 'x.bin', size: 3 }] }),
    headers: withSession(a),
  });
  assert.is(t.status, 201, t.text);
  const status = t.json.status;
  const cases: [string, string, unknown][] = [
    ['PUT', '/user', { lang: 'fr' }],
    ['POST', '/guest', { recipient: 'g@example.org', from: 'alice@example.org' }],
    ['DELETE', `/transfer/${t.json.id}`, undefined],
  ];
  for (const [method, path, json] of cases) {
    for (const token of [undefined, '', 'nope', a.csrf.slice(0, -1)]) {
      const headers: Record<string, string> = { Cookie: a.cookie };
      if (token !== undefined) headers['X-Ferry-Security-Token'] = token;
      const r = await s.request(method, path, { json, headers });
      assert.is(r.status, 403, `${method} ${path} ${token}`);
      assert.is(r.json.message, 'rest_security_token_did_not_match');
    }
  }
  assert.is(
    (await s.request('GET', `/transfer/${t.json.id}`, { headers: { Cookie: a.cookie } })).json.status,
    status,
    'nothing was deleted',
  );
  assert.is((await s.request('PUT', '/user', { json: { lang: 'fr' }, headers: withSession(a) })).json, true);
  assert.is((await s.request('DELETE', `/transfer/${t.json.id}`, { headers: withSession(a) })).json, true);
  // Another session's token does not fit this session.
  const b = await login(s, 'bob', 'battery staple');
  assert.is(
    (
      await s.request('PUT', '/user', {
        json: { lang: 'de' },
        headers: { Cookie: a.cookie, 'X-Ferry-Security-Token': b.csrf },
      })
    ).status,
    403,
  );
});

test('Origin: a change or a login posted from another site is refused, from this site it passes', async () => {
  const a = await login(s, 'alice', 'correct horse');
  const foreign = await s.request('PUT', '/user', {
    json: { lang: 'nl' },
    headers: withSession(a, { Origin: 'https://evil.example' }),
  });
  assert.is(foreign.status, 403);
  assert.equal([foreign.json.message, foreign.json.details], ['rest_security_token_did_not_match', ['origin']]);
  assert.is(
    (await s.request('PUT', '/user', { json: { lang: 'nl' }, headers: withSession(a, { Origin: s.url }) })).status,
    200,
  );
  const loginCsrf = await s.request('POST', '/login', {
    body: 'user_id=bob&password=battery+staple',
    headers: { ...FORM, Origin: 'null' },
  });
  assert.is(loginCsrf.status, 403);
  assert.is(loginCsrf.headers.get('set-cookie'), null);
});

test('logging in again over a live session needs no security token and ends that session; logout needs it, then the cookie opens nothing', async () => {
  const before = await login(s, 'alice', 'correct horse');
  const again = await s.request('POST', '/login', {
    json: { user_id: 'alice', password: 'correct horse' },
    headers: { Cookie: before.cookie },
  });
  assert.is(again.status, 200);
  assert.is(
    (await s.request('GET', '/user', { headers: { Cookie: before.cookie } })).status,
    401,
    'the replaced session is gone',
  );
  const a = {
    cookie: again.headers.get('set-cookie')!.split(';')[0],
    csrf: again.json.csrf_token as string,
    setCookie: '',
  };
  assert.is((await s.request('GET', '/user', { headers: { Cookie: a.cookie } })).json.id, 'alice');
  const noToken = await s.request('POST', '/logout', { headers: { Cookie: a.cookie } });
  assert.is(noToken.status, 403);
  const out = await s.request('POST', '/logout', { headers: withSession(a) });
  assert.is(out.status, 200);
  assert.is(out.json, true);
  assert.match(out.headers.get('set-cookie')!, /ferry_session=;/);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: a.cookie } })).status, 401);
  const b = await login(s, 'bob', 'battery staple');
  const link = await s.request('GET', '/logout', { headers: { Cookie: b.cookie } });
  assert.is(link.status, 302);
  assert.is(link.headers.get('location'), '/login');
  assert.is((await s.request('GET', '/user', { headers: { Cookie: b.cookie } })).status, 401);
});

test('session lifetimes: 8 hours idle ends it; activity keeps it; 7 days after login it ends whatever happens', async () => {
  const a = await login(s, 'carol', 'carol password');
  const me = () => s.request('GET', '/user', { headers: { Cookie: a.cookie } }).then((r) => r.status);
  time.advance(8 * 3600 - 120);
  assert.is(await me(), 200, 'just under the idle limit');
  time.advance(8 * 3600 - 120);
  assert.is(await me(), 200, 'the previous request renewed it');
  time.advance(8 * 3600 + 1);
  assert.is(await me(), 401, 'idle too long');
  const b = await login(s, 'carol', 'carol password');
  // A request every 7 hours (never idle for 8): alive until the last one, 161 hours after login.
  for (let elapsed = 0; elapsed < 7 * 86400; elapsed += 7 * 3600) {
    assert.is(
      (await s.request('GET', '/user', { headers: { Cookie: b.cookie } })).status,
      200,
      `after ${elapsed / 3600} h`,
    );
    time.advance(7 * 3600);
  }
  time.advance(2); // 168 hours and a little after login, 7 hours after the last request
  assert.is((await s.request('GET', '/user', { headers: { Cookie: b.cookie } })).status, 401, 'past 7 days');
});

test('login throttle: the sixth attempt on an account within 15 minutes answers 429 with Retry-After, even with the right password; others are not affected', async () => {
  for (let i = 0; i < 5; i++)
    assert.is((await s.request('POST', '/login', { json: { user_id: 'bob', password: `x${i}` } })).status, 401);
  const r = await s.request('POST', '/login', { json: { user_id: 'bob', password: 'battery staple' } });
  assert.is(r.status, 429);
  assert.is(r.json.message, 'rate_limit_exceeded');
  const after = Number(r.headers.get('retry-after'));
  assert.ok(after > 800 && after <= 900, String(after));
  // The browser's form is sent back to the form, which says how long to wait, in the page's language.
  const form = await s.request('POST', '/login', {
    body: 'user_id=bob&password=battery+staple&return=%2F%3Fs%3Dguests',
    headers: FORM,
  });
  assert.is(form.status, 303);
  const back = form.headers.get('location')!;
  assert.match(back, /^\/login\?wait=\d+&return=%2F%3Fs%3Dguests$/);
  const page = await s.request('GET', back, { headers: { 'Accept-Language': 'fr' } });
  assert.match(page.text, /<p class="error" role="alert">Trop de tentatives échouées\. Réessayez dans 15 min\.<\/p>/);
  assert.ok(page.text.includes('name="return" value="/?s=guests"'));
  assert.is((await s.request('POST', '/login', { json: { user_id: 'alice', password: 'correct horse' } })).status, 200);
  time.advance(901);
  assert.is((await s.request('POST', '/login', { json: { user_id: 'bob', password: 'battery staple' } })).status, 200);
});

test('login throttle: attempts sent all at once count too — forty in parallel on one account, five are checked, the rest 429', async () => {
  await withTestServer({ auth: { sp: { type: 'local' } } }, async (t) => {
    await t.app.services.accounts.addUser('gus', ['gus@example.org'], 'gus password');
    const all = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.request('POST', '/login', { json: { user_id: 'gus', password: `guess ${i}` } }),
      ),
    );
    const count = (status: number) => all.filter((r) => r.status === status).length;
    assert.equal([count(401), count(429)], [5, 35]);
    const right = await t.request('POST', '/login', { json: { user_id: 'gus', password: 'gus password' } });
    assert.is(right.status, 429, 'the account waits out its window');
    // A success takes its own attempt back from the address's count.
    await t.app.services.accounts.addUser('hal', ['hal@example.org'], 'hal password');
    for (let i = 0; i < 14; i++)
      assert.is(
        (await t.request('POST', '/login', { json: { user_id: 'hal', password: 'hal password' } })).status,
        200,
      );
    for (let i = 0; i < 15; i++)
      assert.is(
        (await t.request('POST', '/login', { json: { user_id: `x${i}`, password: 'x' } })).status,
        401,
        `failure ${i + 6}`,
      );
    assert.is(
      (await t.request('POST', '/login', { json: { user_id: 'hal', password: 'hal password' } })).status,
      429,
      'twenty failures from this address',
    );
  });
});

test('login throttle per address: 20 failures from one address over many accounts, then 429 for any account', async () => {
  await withTestServer({ auth: { sp: { type: 'local' } } }, async (t) => {
    await t.app.services.accounts.addUser('dave', ['dave@example.org'], 'dave password');
    for (let i = 0; i < 20; i++)
      assert.is((await t.request('POST', '/login', { json: { user_id: `guess${i}`, password: 'x' } })).status, 401);
    const r = await t.request('POST', '/login', { json: { user_id: 'dave', password: 'dave password' } });
    assert.is(r.status, 429);
    assert.ok(Number(r.headers.get('retry-after')) > 0);
  });
});

test('login throttle behind a reverse proxy on this host: counted per client the proxy saw, not for everyone at once', async () => {
  await withTestServer({ auth: { sp: { type: 'local' } } }, async (t) => {
    await t.app.services.accounts.addUser('fay', ['fay@example.org'], 'fay password');
    const from = (ip: string, user: string, password: string) =>
      t
        .request('POST', '/login', {
          json: { user_id: user, password },
          headers: { 'X-Forwarded-For': `203.0.113.99, ${ip}` },
        })
        .then((r) => r.status);
    for (let i = 0; i < 20; i++) assert.is(await from('198.51.100.7', `guess${i}`, 'x'), 401);
    assert.is(await from('198.51.100.7', 'fay', 'fay password'), 429, 'the guessing client is held back');
    assert.is(await from('198.51.100.8', 'fay', 'fay password'), 200, 'another client behind the same proxy is not');
    // The proxy's own entry (the last one) counts, not what the client wrote before it.
    assert.is(await from('198.51.100.7', 'fay', 'fay password'), 429);
  });
});

test('the throttled address: the forwarded client only from a loopback peer, never from anyone else', () => {
  const xff = { 'x-forwarded-for': '10.1.1.1, 192.0.2.5' };
  assert.is(clientAddress('127.0.0.1', xff), '192.0.2.5');
  assert.is(clientAddress('::ffff:127.0.0.1', xff), '192.0.2.5');
  assert.is(clientAddress('::1', { 'x-real-ip': '2001:db8::5' }), '2001:db8::5');
  assert.is(clientAddress('192.0.2.77', xff), '192.0.2.77', 'a remote client cannot choose its address');
  assert.is(clientAddress('::ffff:192.0.2.77', xff), '192.0.2.77');
  assert.is(clientAddress('127.0.0.1', { 'x-forwarded-for': 'not an address' }), '127.0.0.1');
  assert.is(clientAddress('127.0.0.1', {}), '127.0.0.1');
});

test('https base_url: the cookie is Secure even though TLS ends at the proxy in front', async () => {
  await withTestServer({ base_url: 'https://files.example.org', auth: { sp: { type: 'local' } } }, async (t) => {
    await t.app.services.accounts.addUser('erin', ['erin@example.org'], 'erin password');
    const a = await login(t, 'erin', 'erin password');
    assert.match(a.setCookie, /;\s*secure/i);
    assert.is((await t.request('GET', '/user', { headers: { Cookie: a.cookie } })).json.id, 'erin');
    const out = await t.request('POST', '/logout', { headers: withSession(a) });
    assert.match(out.headers.get('set-cookie')!, /;\s*secure/i);
  });
});

test('with the header service provider there is no local login', async () => {
  await withTestServer(HEADER_SP, async (t) => {
    assert.is((await t.request('POST', '/login', { json: { user_id: 'x', password: 'y' } })).status, 404);
  });
});

test('nothing about a password, session token or security token reaches the log', async () => {
  const a = await login(s, 'alice', 'correct horse');
  await s.request('POST', '/login', { body: 'user_id=alice&password=correct+horse', headers: FORM });
  await s.request('PUT', '/user', { json: { lang: 'en' }, headers: withSession(a) });
  const text = logged.lines.join('\n');
  assert.ok(text.includes('POST /login'), 'requests are logged');
  for (const secret of ['correct horse', 'correct+horse', a.cookie.split('=')[1], a.csrf])
    assert.not.ok(text.includes(secret), secret);
});

test.run();
