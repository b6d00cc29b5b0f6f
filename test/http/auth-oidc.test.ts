import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, startTestServer, type TestServer } from '../helpers/server';
import { capturingLogger } from '../helpers/session';
import { sendWithProfileIni } from '../helpers/api-string';
import { startOidcProvider, type OidcServer } from '../helpers/system/oidc';
import { CookieJar, landedSignedIn, loggedOutTo, toCallback, visit } from '../helpers/oidc-flow';

// OpenID Connect against a real OpenID provider (oidc-provider, started here): the code flow with PKCE, state
// and nonce; refused answers (state, replay, token faults, missing e-mail) as a page and one log line; admins
// by a group claim; RP-initiated logout; an unreachable provider; and the API string for scripts.
let s: TestServer;
/** A ferry whose client secret is wrong: misconfigured. */
let wrongSecret: TestServer;
let op: OidcServer;
const logged = capturingLogger();
const SECRET = 'oidc-client-secret-value-1234';

test.before(async () => {
  const port = await freePort();
  s = await startTestServer(
    {
      auth: {
        sp: [
          {
            type: 'oidc',
            id: 'sso',
            label: 'Example SSO',
            issuer: `http://127.0.0.1:${port}`,
            client_id: 'ferry',
            client_secret: SECRET,
            scopes: ['openid', 'email', 'profile', 'groups'],
            admin_groups: ['ferry-admins'],
          },
          { type: 'local' },
        ],
      },
    },
    { log: logged.log },
  );
  wrongSecret = await startTestServer(
    {
      auth: {
        sp: {
          type: 'oidc',
          id: 'sso',
          issuer: `http://127.0.0.1:${port}`,
          client_id: 'ferry',
          client_secret: 'not-the-secret',
        },
      },
    },
    { log: logged.log },
  );
  op = await startOidcProvider(port, {
    redirectUris: [`${s.url}/login/sso/callback`, `${wrongSecret.url}/login/sso/callback`],
    postLogoutRedirectUris: [`${s.url}/login`],
    backchannelLogoutUri: `${s.url}/login/sso/logout`,
    clientSecret: SECRET,
    accounts: {
      alice: { email: 'alice@example.org', email_verified: true, name: 'Alice Example', groups: ['staff'] },
      boss: { email: 'boss@example.org', email_verified: true, name: 'The Boss', groups: ['staff', 'ferry-admins'] },
      nomail: { name: 'No Mail', groups: [] },
      carl: { email: 'carl@example.org', email_verified: true, name: 'Carl' },
    },
  });
});
test.after(async () => {
  await s.close();
  await wrongSecret.close();
  await op.close();
});

async function signIn(account: string): Promise<{ jar: CookieJar; res: Response; callback: string }> {
  const jar = new CookieJar();
  const callback = await toCallback(jar, s.url, 'sso', account);
  const res = await visit(jar, callback);
  return { jar, res, callback };
}

const session = (jar: CookieJar) => `ferry_session=${jar.get(s.url, 'ferry_session')}`;

function assertNoSecretsLogged(extra: string[] = []): void {
  const text = logged.lines.join('\n');
  for (const secret of [SECRET, ...extra]) assert.not.ok(text.includes(secret), 'a secret reached the log');
}

test('login page: a button per redirect provider beside the local form', async () => {
  const page = await s.request('GET', '/login', { headers: { Accept: 'text/html' } });
  assert.match(
    page.text,
    /<a class="button primary login-button" data-provider="sso" href="\/login\/sso\?return=%2F">Sign in with Example SSO<\/a>/,
  );
  assert.match(page.text, /action="\/login\/local"/);
});

test('/info names the login page as logon_url (two providers); `ferry admin add` makes an OIDC user an admin', async () => {
  assert.is((await s.request('GET', '/info')).json.logon_url, `${s.url}/login`);
  const { jar } = await signIn('carl');
  assert.is((await s.request('GET', '/usage', { headers: { Cookie: session(jar) } })).status, 403);
  await s.app.services.users.addAdmin('carl'); // what `ferry admin add carl` calls
  assert.is((await s.request('GET', '/usage', { headers: { Cookie: session(jar) } })).status, 200);
});

test('login: code flow with PKCE, state and nonce; the person becomes a ferry user with their e-mail and name', async () => {
  const jar = new CookieJar();
  const callback = await toCallback(jar, s.url, 'sso', 'alice');
  const start = new URL(callback);
  assert.ok(start.searchParams.get('code') && start.searchParams.get('state'));
  const res = await visit(jar, callback);
  const me = await landedSignedIn(s, jar, res);
  assert.is(me.json.id, 'alice');
  assert.equal(me.json.email, ['alice@example.org']);
  assert.is((await s.request('GET', '/usage', { headers: { Cookie: session(jar) } })).status, 403);
  const rows = (await s.app.db.query<{ display_name: string }>("SELECT display_name FROM users WHERE id = 'alice'"))[0];
  assert.is(rows.display_name, 'Alice Example');
  assertNoSecretsLogged([start.searchParams.get('code')!]);
});

test('the group claim makes an admin (admin_groups)', async () => {
  const { jar, res } = await signIn('boss');
  assert.is(res.status, 302);
  assert.is((await s.request('GET', '/usage', { headers: { Cookie: session(jar) } })).status, 200);
});

async function refused(callback: string, jar: CookieJar, status: number, reason: string): Promise<void> {
  const before = logged.lines.length;
  const res = await visit(jar, callback);
  const page = await res.text();
  assert.is(res.status, status, page.slice(0, 400));
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.match(page, new RegExp(`data-reason="${reason}"`));
  assert.not.match(page, /at .*\.ts:\d+/); // no stack trace
  assert.is(jar.get(s.url, 'ferry_session'), undefined);
  const lines = logged.lines.slice(before).filter((l) => l.includes('sign-in through sso refused'));
  assert.is(lines.length, 1, logged.lines.slice(before).join('\n'));
  assertNoSecretsLogged([new URL(callback).searchParams.get('code') ?? 'none']);
}

test('wrong state: refused with a page and one log line', async () => {
  const jar = new CookieJar();
  const callback = new URL(await toCallback(jar, s.url, 'sso', 'alice'));
  callback.searchParams.set('state', 'forged-state-value');
  await refused(callback.href, jar, 400, 'failed');
});

test('a callback without the flow this browser started (another browser, or none): refused', async () => {
  const callback = await toCallback(new CookieJar(), s.url, 'sso', 'alice');
  await refused(callback, new CookieJar(), 400, 'failed');
});

test('replayed code: the same answer sent again (with the flow cookie kept) is refused by the provider', async () => {
  const jar = new CookieJar();
  const callback = await toCallback(jar, s.url, 'sso', 'alice');
  const flow = jar.get(s.url, 'ferry_login_flow')!;
  assert.is((await visit(jar, callback)).status, 302);
  const replay = new CookieJar();
  const res = await visit(replay, callback, { headers: { Cookie: `ferry_login_flow=${flow}` } });
  assert.is(res.status, 400);
  assert.match(await res.text(), /data-reason="failed"/);
});

for (const [fault, what] of [
  ['expired', 'an expired ID token'],
  ['bad_signature', 'an ID token signed with another key'],
  ['wrong_audience', 'an ID token for another audience'],
  ['future', 'an ID token issued 15 minutes ahead (clock skew beyond clock_tolerance_s)'],
] as const) {
  test(`${what}: refused with a page and one log line`, async () => {
    op.fault = fault;
    try {
      const jar = new CookieJar();
      const callback = await toCallback(jar, s.url, 'sso', 'alice');
      await refused(callback, jar, 400, 'failed');
    } finally {
      op.fault = null;
    }
  });
}

test('a provider clock a few seconds ahead (within clock_tolerance_s) still signs in', async () => {
  op.fault = 'slightly_ahead';
  try {
    const { res } = await signIn('alice');
    assert.is(res.status, 302);
  } finally {
    op.fault = null;
  }
});

test('missing e-mail claim: a clear page saying so', async () => {
  const jar = new CookieJar();
  const callback = await toCallback(jar, s.url, 'sso', 'nomail');
  await refused(callback, jar, 403, 'no_email');
  const res = await visit(new CookieJar(), `${s.url}/login`);
  assert.is(res.status, 200);
});

test("logout: ferry's session ends, then the provider's (RP-initiated logout with id_token_hint)", async () => {
  const { jar } = await signIn('alice');
  const cookie = session(jar);
  const to = await loggedOutTo(jar, s.url);
  assert.is(to.origin, op.issuer);
  assert.ok(to.searchParams.get('id_token_hint'));
  assert.is(to.searchParams.get('post_logout_redirect_uri'), `${s.url}/login`);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: cookie } })).status, 401);
  // The provider asks to confirm, then comes back to ferry's login page.
  const confirm = await visit(jar, to.href);
  const page = await confirm.text();
  assert.is(confirm.status, 200, page.slice(0, 300));
  const action = new URL(/<form[^>]*action="([^"]+)"/.exec(page)![1], to.href).href;
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)![1];
  const done = await visit(jar, action, { form: { xsrf, logout: 'yes' } });
  let next = new URL(done.headers.get('location')!, action).href;
  for (let i = 0; i < 5 && !next.startsWith(s.url); i++) {
    const r = await visit(jar, next);
    next = new URL(r.headers.get('location')!, next).href;
  }
  assert.is(next, `${s.url}/login`);
});

test('a misconfigured client (wrong secret): the provider refuses ferry; a page (503) and one log line, no secret logged', async () => {
  const jar = new CookieJar();
  const callback = await toCallback(jar, wrongSecret.url, 'sso', 'alice');
  const before = logged.lines.length;
  const res = await visit(jar, callback);
  const page = await res.text();
  assert.is(res.status, 503, page.slice(0, 300));
  assert.match(page, /data-reason="unavailable"/);
  const lines = logged.lines.slice(before).filter((l) => l.includes('sign-in through sso refused'));
  assert.is(lines.length, 1, logged.lines.slice(before).join('\n'));
  assert.match(lines[0], /invalid_client/);
  assert.not.ok(logged.lines.join('\n').includes('not-the-secret'));
});

test('a logout the provider starts (back-channel): the ferry session of that sign-in ends, another stays', async () => {
  const first = await signIn('alice');
  const other = await signIn('alice'); // another browser, its own session at the provider
  const cookie = session(first.jar);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: cookie } })).status, 200);
  // The person signs out at the provider itself (not through ferry), and confirms.
  const end = await visit(first.jar, `${op.issuer}/session/end?client_id=ferry`);
  const page = await end.text();
  assert.is(end.status, 200, page.slice(0, 300));
  const action = new URL(/<form[^>]*action="([^"]+)"/.exec(page)![1], op.issuer).href;
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)![1];
  await visit(first.jar, action, { form: { xsrf, logout: 'yes' } });
  assert.is((await s.request('GET', '/user', { headers: { Cookie: cookie } })).status, 401);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: session(other.jar) } })).status, 200);
  assert.ok(
    logged.lines.some((l) => /logout started by sso: 1 session\(s\) ended/.test(l)),
    logged.lines.join('\n'),
  );
  // A forged logout token (not signed by the provider) ends nothing.
  const forged = await s.request('POST', '/login/sso/logout', {
    body: 'logout_token=eyJhbGciOiJub25lIn0.eyJzaWQiOiJ4In0.',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.is(forged.status, 400);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: session(other.jar) } })).status, 200);
});

test('the API string from the profile drives filesender.py for a person who signed in through OIDC', async () => {
  const { jar } = await signIn('alice');
  const t = await sendWithProfileIni(s, session(jar), 'alice@example.org');
  assert.is(
    (await s.request('GET', `/transfer/${t.id}`, { headers: { Cookie: session(jar) } })).json.status,
    'available',
  );
});

test('an unreachable provider: a clear page (503) and one log line, never a 500; local accounts still sign in', async () => {
  const port = await freePort();
  const lines = capturingLogger();
  const t = await startTestServer(
    {
      auth: {
        sp: [
          {
            type: 'oidc',
            id: 'down',
            issuer: `http://127.0.0.1:${port}`,
            client_id: 'ferry',
            client_secret: SECRET,
            timeout_s: 2,
          },
          { type: 'local' },
        ],
      },
    },
    { log: lines.log },
  );
  try {
    const res = await visit(new CookieJar(), `${t.url}/login/down`);
    const page = await res.text();
    assert.is(res.status, 503, page.slice(0, 300));
    assert.match(page, /data-reason="unavailable"/);
    assert.match(page, /cannot be reached right now/);
    assert.is(lines.lines.filter((l) => l.includes('sign-in through down refused')).length, 1, lines.lines.join('\n'));
    assert.not.ok(lines.lines.join('\n').includes(SECRET));
    await t.app.services.accounts.addUser('admin2', ['admin2@example.org'], 'a long local password');
    assert.is(
      (await t.request('POST', '/login', { json: { user_id: 'admin2', password: 'a long local password' } })).status,
      200,
    );
  } finally {
    await t.close();
  }
});

test.run();
