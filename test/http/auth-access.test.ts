import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { asUser, HEADER_SP, startTestServer, TestServer, sql } from '../helpers/server';
import { signedPath, nowS, remoteSigned } from '../helpers/signing';
import { login, withSession } from '../helpers/session';
import { inAWeek, sendChunks } from '../helpers/upload-client';

// One mechanism for every endpoint: the access levels public / users / owner / admin, checked for every kind
// of principal on a representative endpoint each; the evaluation order; the User endpoints and PUT /config.
let s: TestServer;
let host: string;
let portal: string;
let ops: string;
let aliceTransfer: number;
let aliceGuest: { id: number; token: string };

type Who =
  | 'anonymous'
  | 'guest'
  | 'alice'
  | 'bob'
  | 'root'
  | 'dbadmin'
  | 'app'
  | 'adminApp'
  | 'appAsAlice'
  | 'appAsBob';
const WHO: Who[] = [
  'anonymous',
  'guest',
  'alice',
  'bob',
  'root',
  'dbadmin',
  'app',
  'adminApp',
  'appAsAlice',
  'appAsBob',
];

/** The request as `who` would send it: headers from the trusted proxy, a guest token, or a signature. */
function as(
  who: Who,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; json: any; text: string }> {
  const sign = (app: string, secret: string, user?: string) => {
    const q = path.indexOf('?');
    const args: Record<string, string | number> = { remote_application: app, timestamp: nowS() };
    if (user) args.remote_user = user;
    if (q >= 0) for (const [k, v] of new URLSearchParams(path.slice(q + 1))) args[k] = v;
    const p = signedPath({
      method,
      host,
      path: q < 0 ? path : path.slice(0, q),
      args,
      secret,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    return s.request(
      method,
      p,
      json === undefined ? {} : { body: JSON.stringify(json), headers: { 'content-type': 'application/json' } },
    );
  };
  switch (who) {
    case 'anonymous':
      return s.request(method, path, { json });
    case 'guest':
      return s.request(method, `${path}${path.includes('?') ? '&' : '?'}vid=${aliceGuest.token}`, { json });
    case 'app':
      return sign('portal', portal);
    case 'adminApp':
      return sign('ops', ops);
    case 'appAsAlice':
      return sign('portal', portal, 'alice');
    case 'appAsBob':
      return sign('portal', portal, 'bob');
    default:
      return s.request(method, path, { json, headers: asUser(who) });
  }
}

async function expectAccess(method: string, path: string, expected: Record<Who, number | string>, json?: unknown) {
  for (const who of WHO) {
    const r = await as(who, method, path, json);
    const want = expected[who];
    if (typeof want === 'number') assert.is(r.status, want, `${who} ${method} ${path}: ${r.text}`);
    else assert.is(r.json?.message, want, `${who} ${method} ${path}: ${r.status} ${r.text}`);
  }
}

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, admin: ['root'] });
  host = new URL(s.url).host;
  portal = await s.app.services.accounts.addRemoteApp('portal', false);
  ops = await s.app.services.accounts.addRemoteApp('ops', true);
  await s.app.services.users.addAdmin('dbadmin');
  const t = await s.request('POST', '/transfer', {
    json: transferBody({ files: [{ name: 'a.txt', size: 3 }], recipients: ['r1@example.org', 'r2@example.org'] }),
    headers: asUser('alice'),
  });
  assert.is(t.status, 201, t.text);
  aliceTransfer = t.json.id;
  const g = await s.request('POST', '/guest', {
    json: { recipient: 'g@example.org', from: 'alice@example.org' },
    headers: asUser('alice'),
  });
  assert.is(g.status, 201, g.text);
  aliceGuest = { id: g.json.id, token: g.json.token };
});
test.after(() => s.close());

/** An admin route: admins by config and by database and the admin application pass; everyone else is refused. */
const ADMINS_ONLY = {
  anonymous: 'rest_authentication_required',
  guest: 'rest_admin_required',
  alice: 'rest_admin_required',
  bob: 'rest_admin_required',
  root: 200,
  dbadmin: 200,
  app: 'rest_admin_required',
  adminApp: 200,
  appAsAlice: 'rest_admin_required',
  appAsBob: 'rest_admin_required',
};

/** Something of alice's: she, the admins and an application acting as her pass; to anyone else it is `unknown`. */
const alicesOwn = (unknown: string) => ({
  anonymous: 'rest_authentication_required',
  guest: unknown,
  alice: 200,
  bob: unknown,
  root: 200,
  dbadmin: 200,
  app: unknown,
  adminApp: 200,
  appAsAlice: 200,
  appAsBob: unknown,
});

test('public: GET /info answers everyone', async () => {
  await expectAccess('GET', '/info', Object.fromEntries(WHO.map((w) => [w, 200])) as Record<Who, number>);
});

test('users: GET /user needs a user — a guest token or an application acting as itself is not one', async () => {
  await expectAccess('GET', '/user', {
    anonymous: 'rest_authentication_required',
    guest: 'rest_access_forbidden',
    alice: 200,
    bob: 200,
    root: 200,
    dbadmin: 200,
    app: 'rest_access_forbidden',
    adminApp: 'rest_access_forbidden',
    appAsAlice: 200,
    appAsBob: 200,
  });
});

test('admin: GET /transfer/@all — admins by config, by database, and an admin application', async () => {
  await expectAccess('GET', '/transfer/@all', ADMINS_ONLY);
});

test("owner: alice's Transfer — hers and the admins', an unknown id to anyone else", async () => {
  await expectAccess('GET', `/transfer/${aliceTransfer}`, alicesOwn('transfer_not_found'));
  const bobList = await as('bob', 'GET', '/transfer/@me');
  assert.not.ok(
    bobList.json.some((t: { id: number }) => t.id === aliceTransfer),
    "not in bob's list either",
  );
});

test("owner: alice's Guest — bob may neither see it nor remind nor delete it, it is an unknown id to him; an admin may", async () => {
  for (const [method, json] of [
    ['GET', undefined],
    ['PUT', { remind: true }],
    ['DELETE', undefined],
  ] as const) {
    const r = await as('bob', method, `/guest/${aliceGuest.id}`, json);
    assert.equal([r.status, r.json.message], [404, 'guest_not_found'], method);
  }
  assert.is((await as('root', 'GET', `/guest/${aliceGuest.id}`)).json.email, 'g@example.org');
  assert.is((await as('bob', 'GET', '/guest')).json.length, 0);
});

test('the user itself or an admin: PUT /user/{id}; admin only: GET /user/{id}', async () => {
  await expectAccess('PUT', '/user/alice', alicesOwn('user_not_found'), { lang: 'en' });
  await expectAccess('GET', '/user/alice', ADMINS_ONLY);
  assert.is((await as('root', 'GET', '/user/nobody')).json.message, 'user_not_found');
  assert.is((await as('root', 'PUT', '/user/nobody', { lang: 'fr' })).json.message, 'user_not_found');
});

test("GET /user: the spec's preferences object in full", async () => {
  await as('alice', 'PUT', '/user', { lang: 'de' });
  const me = (await as('alice', 'GET', '/user')).json;
  assert.equal(
    Object.keys(me).sort(),
    [
      'additional_attributes',
      'aup_ticked',
      'created',
      'email',
      'frequent_recipients',
      'guest_preferences',
      'id',
      'is_admin',
      'lang',
      'last_activity',
      'remote_config',
      'transfer_preferences',
    ].sort(),
  );
  assert.is(me.id, 'alice');
  assert.equal(me.additional_attributes, {});
  assert.is(me.aup_ticked, false);
  assert.equal(me.transfer_preferences, []);
  assert.equal(me.guest_preferences, []);
  for (const d of [me.created, me.last_activity]) {
    assert.type(d.raw, 'number');
    // In the user's language (de), as the pages write it: "25. Nov. 2026".
    assert.match(d.formatted, /^\d{1,2}\. \S+ \d{4}$/);
  }
  assert.is(me.lang, 'de');
  assert.ok(
    me.frequent_recipients.includes('r1@example.org') && me.frequent_recipients.includes('r2@example.org'),
    JSON.stringify(me.frequent_recipients),
  );
  assert.match(me.remote_config, new RegExp(`^${s.url}/\\|alice\\|[0-9a-f]{64}$`));
  assert.equal(me.email, ['alice@example.org']);
  assert.is(me.is_admin, false);
  assert.equal((await as('alice', 'GET', '/user/@me')).json, {
    ...me,
    last_activity: (await as('alice', 'GET', '/user/@me')).json.last_activity,
  });
  // Frequent recipients, most recent first.
  await s.request('POST', '/transfer', {
    json: transferBody({ files: [{ name: 'b.txt', size: 1 }], recipients: ['newest@example.org'] }),
    headers: asUser('alice'),
  });
  assert.is((await as('alice', 'GET', '/user')).json.frequent_recipients[0], 'newest@example.org');
  assert.is((await as('bob', 'GET', '/user')).json.lang, 'en', 'the default language when none was chosen');
});

test('PUT /user: lang checked against the shipped languages; unknown fields refused; answers true', async () => {
  const ok = await as('bob', 'PUT', '/user', { lang: 'nl' });
  assert.equal([ok.status, ok.json], [200, true]);
  for (const lang of ['xx', 'NL-nl', '', 42, null]) {
    const r = await as('bob', 'PUT', '/user', { lang });
    assert.equal([r.status, r.json.message, r.json.details], [400, 'bad_lang_code', ['lang']], String(lang));
  }
  assert.equal((await as('bob', 'PUT', '/user', { colour: 'blue' })).json.details, ['colour']);
  assert.is((await as('bob', 'GET', '/user')).json.lang, 'nl');
  assert.is((await as('bob', 'PUT', '/user/@me', { lang: 'fr' })).json, true);
  assert.is((await as('root', 'PUT', '/user/bob', { lang: 'de' })).json, true);
  assert.is((await as('bob', 'GET', '/user')).json.lang, 'de');
});

test('PUT /config: admins only; runtime-safe keys validated, effective at once, persisted', async () => {
  assert.is((await as('alice', 'PUT', '/config', { max_transfer_files: 1 })).json.message, 'rest_admin_required');
  assert.is((await as('anonymous', 'PUT', '/config', { max_transfer_files: 1 })).status, 401);
  const ok = await as('root', 'PUT', '/config', { max_transfer_files: 1 });
  assert.equal([ok.status, ok.json], [200, true]);
  assert.is((await s.request('GET', '/info')).json.max_transfer_files, 1);
  const tooMany = await s.request('POST', '/transfer', {
    json: transferBody({
      files: [
        { name: 'a', size: 1 },
        { name: 'b', size: 1 },
      ],
    }),
    headers: asUser('alice'),
  });
  assert.is(tooMany.json.message, 'transfer_too_many_files');
  assert.is((await as('root', 'GET', '/config')).json.max_transfer_files, 1);
  assert.equal(await sql(s, 'SELECT key FROM config_overrides'), [{ key: 'max_transfer_files' }]);
  const refused = await as('root', 'PUT', '/config', { data_dir: '/tmp', admin: ['bob'], max_transfer_files: 5 });
  assert.equal(
    [refused.status, refused.json.message, refused.json.details],
    [400, 'rest_bad_parameter', ['data_dir', 'admin']],
  );
  const invalid = await as('adminApp', 'PUT', '/config', { max_transfer_files: -1 });
  assert.equal([invalid.status, invalid.json.details], [400, ['max_transfer_files']]);
  assert.is(s.app.services.settings.get().max_transfer_files, 1, 'a refused change changes nothing');
  assert.is((await as('adminApp', 'PUT', '/config', { max_transfer_files: 30 })).json, true);
});

test('GET /echo tells who: user and auth.remote/attr per mode', async () => {
  const sp = (await as('alice', 'GET', '/echo')).json;
  assert.equal(
    [sp.user, sp.auth.remote, sp.auth.attr.uid, sp.auth.attr.email],
    ['alice', false, 'alice', ['alice@example.org']],
  );
  const guest = (await as('guest', 'GET', '/echo')).json;
  assert.equal(
    [guest.user, guest.auth.remote, guest.auth.type, guest.auth.attr.email],
    [null, false, 'guest', ['g@example.org']],
  );
  const anon = (await as('anonymous', 'GET', '/echo')).json;
  assert.equal([anon.user, anon.auth.remote, anon.auth.type], [null, false, null]);
  const app = (await as('appAsBob', 'GET', '/echo')).json;
  assert.equal([app.user, app.auth.remote, app.auth.attr.remote_application], ['bob', true, 'portal']);
});

test("`from` under the service provider: one of the user's own addresses only", async () => {
  const h = { 'X-Remote-User': 'multi', 'X-Remote-Email': 'first@example.org, second@example.org' };
  const create = (from: string) =>
    s.request('POST', '/transfer', {
      json: { files: [{ name: 'x', size: 1 }], recipients: ['r@example.org'], from, expires: inAWeek() },
      headers: h,
    });
  assert.is((await create('second@example.org')).status, 201);
  const foreign = await create('someone@example.net');
  assert.equal([foreign.status, foreign.json.message, foreign.json.details], [400, 'bad_email', ['from']]);
});

test('chunk key: the File uid may upload and delete before the Transfer is available, never after; refused in "auth" mode', async () => {
  const t = await s.request('POST', '/transfer', {
    json: transferBody({
      files: [
        { name: 'k1', size: 4 },
        { name: 'k2', size: 4 },
      ],
    }),
    headers: asUser('alice'),
  });
  const [f1, f2] = t.json.files;
  // The uid of any File of the Transfer opens the others' chunks; no session needed.
  const up = await sendChunks(s.request, f2.id, Buffer.from('data'), 4, { query: `?key=${f1.uid}` });
  assert.is(up[0].status, 200, up[0].text);
  const wrong = await s.request('PUT', `/file/${f2.id}/chunk/0?key=${'0'.repeat(32)}`, { body: Buffer.from('data') });
  assert.is(wrong.status, 401);
  assert.is(
    (await s.request('GET', `/transfer/${t.json.id}?key=${f1.uid}`)).status,
    401,
    'not an endpoint the key opens',
  );
  const other = await s.request('POST', '/transfer', {
    json: transferBody({ files: [{ name: 'o', size: 1 }] }),
    headers: asUser('alice'),
  });
  assert.is(
    (await s.request('DELETE', `/transfer/${other.json.id}?key=${f1.uid}`)).status,
    401,
    'a key of another Transfer',
  );
  assert.is(
    (await s.request('DELETE', `/transfer/${other.json.id}?key=${other.json.files[0].uid}`)).json,
    true,
    'before available',
  );
  await sendChunks(s.request, f1.id, Buffer.from('data'), 4, { headers: asUser('alice') });
  for (const f of [f1, f2])
    assert.is(
      (await s.request('PUT', `/file/${f.id}`, { json: { complete: true }, headers: asUser('alice') })).status,
      200,
    );
  assert.is(
    (await s.request('PUT', `/transfer/${t.json.id}`, { json: { complete: true }, headers: asUser('alice') })).status,
    200,
  );
  const late = await s.request('DELETE', `/transfer/${t.json.id}?key=${f1.uid}`);
  assert.is(late.status, 401, 'available: the key no longer deletes');
  assert.is((await s.request('GET', `/transfer/${t.json.id}`, { headers: asUser('alice') })).json.status, 'available');
  const authMode = await startTestServer({ ...HEADER_SP, chunk_upload_security: 'auth' });
  try {
    const t2 = await authMode.request('POST', '/transfer', {
      json: transferBody({ files: [{ name: 'a', size: 1 }] }),
      headers: asUser('alice'),
    });
    const r = await authMode.request('PUT', `/file/${t2.json.files[0].id}/chunk/0?key=${t2.json.files[0].uid}`, {
      body: Buffer.from('a'),
    });
    assert.equal([r.status, r.json.message], [401, 'rest_authentication_required']);
  } finally {
    await authMode.close();
  }
});

test("evaluation order under the header SP: a guest token wins over the proxy's user, the proxy's user over a signature", async () => {
  const withBoth = await s.request('GET', `/echo?vid=${aliceGuest.token}`, { headers: asUser('bob') });
  assert.is(withBoth.json.auth.type, 'guest');
  const p = remoteSigned({ host, path: '/echo', app: 'portal', user: 'carol', secret: portal });
  const spFirst = await s.request('GET', p, { headers: asUser('bob') });
  assert.equal([spFirst.json.user, spFirst.json.auth.remote], ['bob', false]);
});

test('evaluation order under the local SP: a guest token wins over a session; bad, closed and expired tokens stop there', async () => {
  const t = await startTestServer({ auth: { sp: { type: 'local' } } });
  try {
    await t.app.services.accounts.addUser('alice', ['alice@example.org'], 'correct horse');
    const a = await login(t, 'alice', 'correct horse');
    const g = await t.request('POST', '/guest', {
      json: { recipient: 'g@example.org', from: 'alice@example.org' },
      headers: withSession(a),
    });
    assert.is(g.status, 201, g.text);
    const echo = await t.request('GET', `/echo?vid=${g.json.token}`, { headers: { Cookie: a.cookie } });
    assert.equal([echo.json.auth.type, echo.json.user], ['guest', null]);
    // The guest token is the principal: the session's rights do not come along (no admin view, no token needed).
    assert.is(
      (await t.request('GET', `/user?vid=${g.json.token}`, { headers: { Cookie: a.cookie } })).json.message,
      'rest_access_forbidden',
    );
    const bad = await t.request('GET', `/user?vid=${'f'.repeat(40)}`, { headers: { Cookie: a.cookie } });
    assert.equal([bad.status, bad.json.message], [401, 'guest_token_invalid']);
    assert.equal((await t.request('GET', '/echo?vid=')).json.message, 'guest_token_invalid');
    const h = new URL(t.url).host;
    const appSecret = await t.app.services.accounts.addRemoteApp('portal', false);
    const p = remoteSigned({ host: h, path: '/echo', app: 'portal', user: 'carol', secret: appSecret });
    assert.is(
      (await t.request('GET', p, { headers: { Cookie: a.cookie } })).json.user,
      'alice',
      'the session before the signature',
    );
    await sql(t, 'UPDATE guests SET expires = ? WHERE id = ?', nowS() - 10, g.json.id);
    const expired = await t.request('GET', `/echo?vid=${g.json.token}`, { headers: { Cookie: a.cookie } });
    assert.equal([expired.status, expired.json.message], [410, 'guest_expired']);
    const g2 = await t.request('POST', '/guest', {
      json: { recipient: 'h@example.org', from: 'alice@example.org' },
      headers: withSession(a),
    });
    assert.is((await t.request('DELETE', `/guest/${g2.json.id}`, { headers: withSession(a) })).json, true);
    const closed = await t.request('GET', `/echo?vid=${g2.json.token}`);
    assert.equal([closed.status, closed.json.message], [401, 'guest_token_invalid']);
  } finally {
    await t.close();
  }
});

test.run();
