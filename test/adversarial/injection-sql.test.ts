import vm from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { startTestServer, HEADER_SP, TestServer, asUser } from '../helpers/server';
import { signedPath } from '../helpers/signing';
import { sendChunks } from '../helpers/upload-client';
import { FREQUENT_RECIPIENTS_LIMIT } from '../../src/domain/transfers';
import { alice, boss, assertErrorShape } from './fixture';
import { isSafeRelativeName } from '../../src/domain/file-names';

// SQL metacharacters in every string field, path segment and query parameter: stored literally
// where the field is free text, refused in the error shape where it is not, never a 500, never another row,
// and the schema intact afterwards. Then JSONP: hostile data comes back as data, hostile callbacks are refused.
let s: TestServer;
let local: TestServer;
let portal: string;
const SQL = [
  "' OR '1'='1",
  "'; DROP TABLE transfers; --",
  '" OR ""="',
  '%',
  '_',
  '\\',
  "') OR 1=1 --",
  '1; SELECT * FROM users',
  "x' UNION SELECT token FROM recipients --",
  '*/ /*',
  '?',
  ':id',
  '@p',
  '$1',
  "'||(SELECT sqlite_version())||'",
];
/** Local parts the address rules allow that still carry SQL: they must be stored and mailed as given. */
const SQL_ADDRESSES = ["x'or'1'='1@example.org", '%_@example.org', "a'--@example.org", '$1?@example.org'];
/**
 * A file name carrying the string: as it is when ferry takes it as a name; else (a lone backslash, a blank
 * segment between slashes, a trailing "//") between two letters with each "/" written as U+2215, since "/" and
 * backslash separate folders and a name's path may not leave its folder (test/http/folder-names.test.ts).
 */
const asFileName = (v: string) => (isSafeRelativeName(v) ? v : `a${v.replace(/\//g, '\u2215')}b`);

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, admin: ['boss'] });
  local = await startTestServer({ admin: ['root'] });
  portal = await local.app.services.accounts.addRemoteApp('portal', false);
  await local.app.services.accounts.addUser('alice', ['alice@example.org'], 'correct horse');
});
test.after(async () => {
  await s.close();
  await local.close();
});

async function schema(t: TestServer): Promise<string> {
  if (t.app.db.dialect === 'postgres') {
    return JSON.stringify(
      await t.app.db.query(
        `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
      ),
    );
  }
  assert.equal(await t.app.db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
  return JSON.stringify(await t.app.db.query('SELECT type, name, sql FROM sqlite_master ORDER BY name'));
}

/** One request that must not be a 500; a 4xx must be in the error shape. */
async function probe(
  t: TestServer,
  label: string,
  method: string,
  path: string,
  init: Parameters<TestServer['request']>[2] = {},
) {
  const r = await t.request(method, path, init);
  assert.ok(r.status < 500, `${label}: ${r.status} ${r.text.slice(0, 200)}`);
  if (r.status >= 400 && r.json) assertErrorShape(r, label);
  return r;
}

test('free-text fields store SQL metacharacters literally and give them back', async () => {
  const before = await schema(s);
  for (const v of SQL) {
    const r = await probe(s, `transfer ${v}`, 'POST', '/transfer', {
      headers: alice,
      json: transferBody({
        files: [{ name: asFileName(v), size: 1, mime_type: v, cid: v }],
        recipients: SQL_ADDRESSES,
        subject: v,
        message: v,
      }),
    });
    assert.is(r.status, 201, r.text);
    const got = (await s.request('GET', `/transfer/${r.json.id}`, { headers: alice })).json;
    assert.equal(
      [got.subject, got.message, got.files[0].name, got.files[0].mime_type, r.json.files[0].cid],
      [v, v, asFileName(v), v, v],
      v,
    );
    assert.equal(
      got.recipients.map((x: any) => x.email),
      SQL_ADDRESSES,
    );
    const g = await probe(s, `guest ${v}`, 'POST', '/guest', {
      headers: alice,
      json: { recipient: SQL_ADDRESSES[0], subject: v, message: v },
    });
    assert.is(g.status, 201, g.text);
    const gg = (await s.request('GET', `/guest/${g.json.id}`, { headers: alice })).json;
    assert.equal([gg.subject, gg.message, gg.email], [v, v, SQL_ADDRESSES[0]]);
  }
  assert.is((await s.request('GET', '/transfer', { headers: alice })).json.length, SQL.length);
  assert.is((await s.request('GET', '/transfer', { headers: asUser('nobody') })).json.length, 0);
  assert.is(await schema(s), before);
});

test('closed vocabularies refuse SQL in the error shape: options, lang, ids, tokens, formats, keys', async () => {
  const before = await schema(s);
  const t = (await s.request('GET', '/transfer', { headers: alice })).json[0];
  for (const v of SQL) {
    const q = encodeURIComponent(v);
    const expect4xx = async (
      label: string,
      method: string,
      path: string,
      init: Parameters<TestServer['request']>[2] = {},
    ) => {
      const r = await probe(s, label, method, path, init);
      assert.ok(r.status >= 400, `${label}: ${r.status} ${r.text.slice(0, 200)}`);
    };
    await expect4xx(`options ${v}`, 'POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name: 'a', size: 1 }], options: [v] }),
    });
    await expect4xx(`guest options ${v}`, 'POST', '/guest', {
      headers: alice,
      json: { recipient: 'g@example.org', transfer_options: [v] },
    });
    await expect4xx(`lang ${v}`, 'PUT', '/user', { headers: alice, json: { lang: v } });
    await expect4xx(`user id ${v}`, 'GET', `/user/${q}`, { headers: boss });
    await expect4xx(`frequent of ${v}`, 'GET', `/user/${q}/frequent_recipients`, { headers: boss });
    await expect4xx(`transfer id ${v}`, 'GET', `/transfer/${q}`, { headers: alice });
    await expect4xx(`download token ${v}`, 'GET', `/download?token=${q}`, { headers: { accept: 'application/json' } });
    await expect4xx(`files_ids ${v}`, 'GET', `/download?token=${t.recipients[0].token}&files_ids=${q}`, {
      headers: { accept: 'application/json' },
    });
    await expect4xx(`archive_format ${v}`, 'GET', `/download?token=${t.recipients[0].token}&archive_format=${q}`, {
      headers: { accept: 'application/json' },
    });
    await expect4xx(`download page token ${v}`, 'GET', `/?s=download&token=${q}`, { headers: { accept: 'text/html' } });
    await expect4xx(`guest vid ${v}`, 'GET', `/transfer?vid=${q}`);
    if (!/^[A-Za-z_$][\w$]*$/.test(v)) await expect4xx(`callback ${v}`, 'GET', `/info?callback=${q}`);
    await probe(s, `sink message ${v}`, 'GET', `/?s=mail-sink&id=${q}`, { headers: boss });
    await probe(s, `page ${v}`, 'GET', `/?s=${q}&lang=${q}`, { headers: alice });
    await probe(s, `progress key ${v}`, 'GET', `/legacyuploadprogress/${q}`);
    await probe(s, `recipient ${v}`, 'POST', `/transfer/${t.id}/recipient`, {
      headers: alice,
      json: { recipient: `${v}@example.org` },
    });
  }
  assert.is(await schema(s), before);
});

test("SQL in user ids, proxy e-mails and the frequent-recipients filter: literal, and nobody else's rows", async () => {
  const used: string[] = (await s.request('GET', '/user/@me/frequent_recipients', { headers: alice })).json;
  assert.ok(
    used.length > SQL_ADDRESSES.length && used.length < FREQUENT_RECIPIENTS_LIMIT,
    `${used.length} addresses, all listed`,
  );
  for (const v of SQL) {
    const who = asUser(v, SQL_ADDRESSES[1]);
    const me = await probe(s, `uid ${v}`, 'GET', '/user', { headers: who });
    assert.is(me.json.id, v);
    assert.equal((await probe(s, `transfers of ${v}`, 'GET', '/transfer', { headers: who })).json, []);
    // A literal substring: "%" and "_" are no wildcards, a quote ends nothing.
    const frequent = await probe(
      s,
      `filter ${v}`,
      'GET',
      `/user/@me/frequent_recipients?filterOp[contains]=${encodeURIComponent(v)}`,
      { headers: alice },
    );
    assert.equal(
      frequent.json,
      used.filter((a) => a.includes(v.toLowerCase())),
      v,
    );
    const other = await probe(s, `admin view ${v}`, 'GET', `/user/${encodeURIComponent(v)}`, { headers: boss });
    assert.is(other.json.id, v);
  }
});

test('local sign-in and signed requests with SQL in the user, the password and the application name', async () => {
  const before = await schema(local);
  const host = new URL(local.url).host;
  for (const v of SQL) {
    // 429 once the throttle counts the wrong passwords: still a refusal, never a session.
    const login = await probe(local, `login ${v}`, 'POST', '/login', { json: { user_id: v, password: v } });
    assert.ok([401, 429].includes(login.status), `${v}: ${login.text}`);
    const withPass = await probe(local, `login alice ${v}`, 'POST', '/login', {
      json: { user_id: 'alice', password: `correct horse${v}` },
    });
    assert.ok([401, 429].includes(withPass.status), `${v}: ${withPass.text}`);
    assert.is(withPass.headers.get('set-cookie'), null);
    const app = signedPath({
      method: 'GET',
      host,
      path: '/user',
      args: { remote_application: v, remote_user: 'alice', timestamp: Math.floor(Date.now() / 1000) },
      secret: portal,
    });
    assert.is((await probe(local, `app ${v}`, 'GET', app)).status, 401);
    const asUserV = signedPath({
      method: 'GET',
      host,
      path: '/transfer',
      args: { remote_application: 'portal', remote_user: v, timestamp: Math.floor(Date.now() / 1000) },
      secret: portal,
    });
    const r = await probe(local, `remote_user ${v}`, 'GET', asUserV);
    if (r.status === 200) assert.equal(r.json, [], v);
  }
  // The throttle may lock the account after the wrong passwords; the right one is still checked, never bypassed.
  assert.ok(
    [200, 429].includes(
      (await local.request('POST', '/login', { json: { user_id: 'alice', password: 'correct horse' } })).status,
    ),
  );
  assert.is(await schema(local), before);
});

test('JSONP hands hostile stored text to the callback as the same data the JSON answer holds', async () => {
  const evil = ['</script><script>alert(1)</script>', 'a\u2028b\u2029c', "');alert(1);//", '*/alert(1)/*', '\u202Eexe'];
  const r = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: evil.map((name) => ({ name: asFileName(name), size: 1 })), message: evil.join('\n') }),
  });
  assert.is(r.status, 201, r.text);
  const json = await s.request('GET', `/transfer/${r.json.id}`, { headers: alice });
  // Browser credentials (here the proxy's headers) get no JSONP: another site's <script> tag would read the data.
  const viaBrowser = await s.request('GET', `/transfer/${r.json.id}?callback=ferry.got`, { headers: alice });
  assert.equal(
    [viaBrowser.status, viaBrowser.json?.message, viaBrowser.json?.details],
    [403, 'rest_access_forbidden', ['callback']],
  );
  // A signed script may use it.
  const secret = await s.app.services.users.remoteSecret('alice');
  const host = new URL(s.url).host;
  const signedGet = signedPath({
    method: 'GET',
    host,
    path: `/transfer/${r.json.id}`,
    args: { remote_user: 'alice', timestamp: Math.floor(Date.now() / 1000), callback: 'ferry.got' },
    secret,
  });
  const jsonp = await s.request('GET', signedGet);
  assert.is(jsonp.status, 200, jsonp.text);
  assert.match(jsonp.headers.get('content-type')!, /^text\/javascript/);
  assert.is(jsonp.headers.get('x-content-type-options'), 'nosniff');
  assert.not.ok(/[\u2028\u2029]/.test(jsonp.text), 'separators escaped');
  let got: unknown;
  vm.runInNewContext(
    jsonp.text,
    { ferry: { got: (v: unknown) => (got = v) }, alert: () => assert.unreachable('alert ran') },
    { timeout: 1000 },
  );
  assert.equal(JSON.parse(JSON.stringify(got)), json.json);
});

test('JSONP callbacks other than plain dotted identifiers are refused and never echoed', async () => {
  const hostile = [
    '',
    ' cb',
    'cb\n',
    'cb\u2028',
    'a.',
    '.a',
    'é',
    'a-b',
    'a\u0000',
    'cb\r\nSet-Cookie: x=1',
    'a/*',
    'a=1',
    "a'",
    '(cb)',
    'a,b',
    'cb//',
  ];
  for (const cb of hostile) {
    const r = await probe(s, `callback ${JSON.stringify(cb)}`, 'GET', `/info?callback=${encodeURIComponent(cb)}`);
    assert.is(r.status, 400, JSON.stringify(cb));
    assert.equal([r.json.message, r.json.details], ['rest_bad_parameter', ['callback']]);
    assert.is(r.headers.get('set-cookie'), null);
    if (cb.trim()) assert.not.ok(r.text.includes(cb), JSON.stringify(cb));
  }
  for (const cb of ['$', '_', 'a.b.c', '$jq123_4', 'A1']) {
    const r = await probe(s, `callback ${cb}`, 'GET', `/info?callback=${cb}`);
    assert.is(r.status, 200, cb);
    assert.ok(r.text.startsWith(`${cb}(`), cb);
  }
  const head = await probe(s, 'HEAD callback', 'HEAD', '/info?callback=%3Cscript%3E');
  assert.is(head.status, 400);
  // A callback on a download must not turn an uploaded script into one the browser would run.
  const t = (
    await s.request('POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name: 'x.js', size: 8, mime_type: 'text/javascript' }] }),
    })
  ).json;
  await sendChunks(s.request, t.files[0].id, Buffer.from('alert(1)'), 1024, { headers: alice });
  await s.request('PUT', `/file/${t.files[0].id}`, { headers: alice, json: { complete: true } });
  const done = (await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } })).json;
  const dl = await probe(s, 'download with callback', 'GET', `/download?token=${done.recipients[0].token}&callback=cb`);
  assert.is(dl.status, 200);
  assert.is(dl.text, 'alert(1)');
  assert.is(dl.headers.get('content-type'), 'application/octet-stream');
});

test.run();
