import crypto from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TestServer } from '../helpers/server';
import { remoteSigned, signedPath } from '../helpers/signing';
import { capturingLogger, login, movableClock, withSession } from '../helpers/session';
import { inAWeek } from '../helpers/upload-client';
import { until } from '../helpers/until';

// Signed requests: remote applications (as themselves or acting as a user) and remote users.
let s: TestServer;
let host: string;
let portal: string;
let ops: string;
const time = movableClock();
const logged = capturingLogger();
const now = () => time.clock();
const JSON_HEADERS = { 'content-type': 'application/json' };

test.before(async () => {
  s = await startTestServer(
    { admin: ['root'], upload_chunk_size: 1024 * 1024 },
    { clock: time.clock, log: logged.log },
  );
  host = new URL(s.url).host;
  portal = await s.app.services.accounts.addRemoteApp('portal', false);
  ops = await s.app.services.accounts.addRemoteApp('ops', true);
  await s.app.services.accounts.addUser('alice', ['alice@example.org'], 'correct horse');
  await s.app.services.accounts.addUser('root', ['root@example.org'], 'root password');
});
test.after(() => s.close());

const asApp = (
  method: string,
  path: string,
  args: Record<string, string | number>,
  secret = portal,
  body?: string | Buffer,
) =>
  signedPath({ method, host, path, args: { remote_application: 'portal', timestamp: now(), ...args }, secret, body });

test('a remote application acting as a user: that user, created on first sight; echo says remote', async () => {
  const r = await s.request('GET', asApp('GET', '/echo', { remote_user: 'carol' }));
  assert.is(r.status, 200, r.text);
  assert.is(r.json.user, 'carol');
  assert.is(r.json.auth.remote, true);
  assert.equal(r.json.auth.attr, { uid: 'carol', email: [], remote_application: 'portal' });
  const root = await login(s, 'root', 'root password');
  const carol = await s.request('GET', '/user/carol', { headers: { Cookie: root.cookie } });
  assert.is(carol.status, 200);
  assert.is(carol.json.id, 'carol');
});

test('a remote application as itself: not a user; an admin when flagged', async () => {
  const echo = await s.request('GET', asApp('GET', '/echo', {}));
  assert.is(echo.json.user, null);
  assert.equal(echo.json.auth, { remote: true, type: 'application', attr: { remote_application: 'portal' } });
  assert.is((await s.request('GET', asApp('GET', '/user', {}))).json.message, 'rest_access_forbidden');
  assert.is((await s.request('GET', asApp('GET', '/transfer/@all', {}))).json.message, 'rest_admin_required');
  const admin = remoteSigned({ host, path: '/transfer/@all', app: 'ops', secret: ops, at: now() });
  assert.is((await s.request('GET', admin)).status, 200);
  const asUser = remoteSigned({ host, path: '/transfer/@all', app: 'ops', user: 'carol', secret: ops, at: now() });
  assert.is(
    (await s.request('GET', asUser)).json.message,
    'rest_admin_required',
    "acting as carol, with carol's rights",
  );
});

test("wrong credentials: unknown application, missing or wrong signature, another application's secret", async () => {
  const unknown = remoteSigned({ host, path: '/echo', app: 'nobody', secret: portal, at: now() });
  const r = await s.request('GET', unknown);
  assert.equal([r.status, r.json.message], [401, 'auth_remote_unknown_application']);
  const unsigned = await s.request('GET', `/echo?remote_application=portal&timestamp=${now()}`);
  assert.equal([unsigned.status, unsigned.json.message], [401, 'auth_remote_signature_check_failed']);
  const wrong = await s.request('GET', asApp('GET', '/echo', {}, ops));
  assert.equal([wrong.status, wrong.json.message], [401, 'auth_remote_signature_check_failed']);
});

test('tampering: method, path, query, body and timestamp each changed → 401 auth_remote_signature_check_failed', async () => {
  const body = JSON.stringify({ recipient: 'guest@example.org', from: 'x@example.org' });
  const sign = (ts: number) => asApp('POST', '/echo', { remote_user: 'dave', timestamp: ts }, portal, body);
  const send = (p: string, method = 'POST', b = body) => s.request(method, p, { body: b, headers: JSON_HEADERS });
  assert.is((await send(sign(now()))).status, 200);
  const failures: [string, Promise<{ status: number; json: any }>][] = [
    ['method', send(sign(now() + 1), 'PUT')],
    ['path', send(sign(now() + 2).replace('/echo?', '/echo/x?'))],
    ['query', send(sign(now() + 3).replace('remote_user=dave', 'remote_user=eve'))],
    ['added argument', send(`${sign(now() + 4)}&lang=fr`)],
    ['body', send(sign(now() + 5), 'POST', body.replace('guest', 'other'))],
    ['timestamp', send(sign(now() + 6).replace(`timestamp=${now() + 6}`, `timestamp=${now() + 7}`))],
  ];
  for (const [what, p] of failures) {
    const r = await p;
    assert.equal([r.status, r.json.message], [401, 'auth_remote_signature_check_failed'], what);
  }
});

test('timestamps: stale refused, ahead up to signature_max_future_s accepted, further refused', async () => {
  const at = (ts: number) => s.request('GET', asApp('GET', '/echo', { remote_user: 'x', timestamp: ts }));
  for (const [ts, status] of [
    [now() - 16, 401],
    [now() - 10, 200],
    [now() + 3600, 200],
    [now() + 86400 - 5, 200],
    [now() + 86400 + 60, 401],
  ] as const) {
    const r = await at(ts);
    assert.is(r.status, status, `${ts - now()} s`);
    if (status === 401) assert.is(r.json.message, 'auth_remote_too_late');
  }
});

test('an exact replay of a signed POST is refused; a retry signed with a new timestamp goes through', async () => {
  const body = JSON.stringify({
    files: [{ name: 'r.bin', size: 1 }],
    recipients: ['r@example.org'],
    from: 'any@example.org',
    expires: inAWeek(),
  });
  const p = asApp('POST', '/transfer', { remote_user: 'replayer' }, portal, body);
  const first = await s.request('POST', p, { body, headers: JSON_HEADERS });
  assert.is(first.status, 201, first.text);
  const again = await s.request('POST', p, { body, headers: JSON_HEADERS });
  assert.equal(
    [again.status, again.json.message, again.json.details],
    [401, 'auth_remote_signature_check_failed', ['replay']],
  );
  time.advance(1);
  const retry = await s.request('POST', asApp('POST', '/transfer', { remote_user: 'replayer' }, portal, body), {
    body,
    headers: JSON_HEADERS,
  });
  assert.is(retry.status, 201);
  const mine = await s.request('GET', asApp('GET', '/transfer/@me', { remote_user: 'replayer' }));
  assert.is(mine.json.length, 2, 'two transfers, not three');
});

test("host variants: Host with its port, without it, and base_url's host (here also through /rest.php)", async () => {
  const noPort = host.replace(/:\d+$/, '');
  for (const h of [host, noPort]) {
    const p = remoteSigned({ host: h, path: '/echo', app: 'portal', user: 'hv', secret: portal, at: now() });
    assert.is((await s.request('GET', p)).status, 200, h);
  }
  const viaAlias = remoteSigned({ host, path: '/rest.php/echo', app: 'portal', user: 'hv', secret: portal, at: now() });
  assert.is((await s.request('GET', viaAlias)).status, 200);
  const wrongHost = remoteSigned({
    host: 'evil.example',
    path: '/echo',
    app: 'portal',
    user: 'hv',
    secret: portal,
    at: now(),
  });
  assert.is((await s.request('GET', wrongHost)).json.message, 'auth_remote_signature_check_failed');
});

test("host variants behind a proxy: base_url's public host and path prefix, the way FileSender clients sign", async () => {
  const t = await startTestServer({ base_url: 'https://files.example.org:8443/ferry' });
  try {
    const secret = await t.app.services.accounts.addRemoteApp('portal', false);
    const ts = Math.floor(Date.now() / 1000);
    // The proxy strips /ferry; the client signed files.example.org:8443/ferry/rest.php/echo.
    const p = signedPath({
      method: 'GET',
      host: 'files.example.org:8443/ferry',
      path: '/rest.php/echo',
      args: { remote_application: 'portal', remote_user: 'px', timestamp: ts },
      secret,
    });
    const r = await t.request('GET', p.replace(/^\/ferry/, ''));
    assert.is(r.status, 200, r.text);
    assert.is(r.json.user, 'px');
  } finally {
    await t.close();
  }
});

test('rotation: without grace the old secret stops at once; with grace both work until it ends', async () => {
  const first = await s.app.services.accounts.addRemoteApp('rot', false);
  const call = (secret: string) =>
    s.request('GET', remoteSigned({ host, path: '/echo', app: 'rot', secret, at: now() })).then((r) => r.status);
  const second = (await s.app.services.accounts.rotateRemoteApp('rot', 0)).secret;
  assert.is(await call(first), 401);
  assert.is(await call(second), 200);
  const third = (await s.app.services.accounts.rotateRemoteApp('rot', 600)).secret;
  assert.is(await call(second), 200);
  assert.is(await call(third), 200);
  time.advance(601);
  assert.is(await call(second), 401, 'grace over');
  assert.is(await call(third), 200);
  const fourth = (await s.app.services.accounts.rotateRemoteApp('rot', 0)).secret;
  assert.is(await call(third), 401);
  assert.is(await call(fourth), 200);
});

test('remote user: remote_config from GET /user, signing with it as FileSender clients do; secret_rotate replaces it', async () => {
  const a = await login(s, 'alice', 'correct horse');
  const cfg = (await s.request('GET', '/user', { headers: { Cookie: a.cookie } })).json.remote_config as string;
  const [base, uid, secret] = cfg.split('|');
  assert.is(base, `${s.url}/`);
  assert.is(uid, 'alice');
  assert.match(secret, /^[0-9a-f]{64}$/);
  assert.is(
    (await s.request('GET', '/user', { headers: { Cookie: a.cookie } })).json.remote_config,
    cfg,
    'created once, then kept',
  );
  const signed = (sec: string) =>
    signedPath({ method: 'GET', host, path: '/user', args: { remote_user: 'alice', timestamp: now() }, secret: sec });
  const me = await s.request('GET', signed(secret));
  assert.is(me.status, 200, me.text);
  assert.is(me.json.id, 'alice');
  const echo = await s.request(
    'GET',
    signedPath({ method: 'GET', host, path: '/echo', args: { remote_user: 'alice', timestamp: now() }, secret }),
  );
  assert.equal([echo.json.user, echo.json.auth.remote, echo.json.auth.attr.uid], ['alice', true, 'alice']);
  // A FileSender client appends "/<endpoint>" to the URL of remote_config, which ends with "/".
  const appended = new URL(`${base}/user`).pathname;
  assert.is(appended, '//user');
  const viaConfig = await s.request(
    'GET',
    signedPath({ method: 'GET', host, path: appended, args: { remote_user: 'alice', timestamp: now() }, secret }),
  );
  assert.is(viaConfig.status, 200, viaConfig.text);
  assert.is(viaConfig.json.id, 'alice');
  assert.is((await s.request('PUT', '/user', { json: { secret_rotate: true }, headers: withSession(a) })).json, true);
  const old = await s.request('GET', signed(secret));
  assert.equal([old.status, old.json.message], [401, 'auth_remote_signature_check_failed']);
  const fresh = (
    (await s.request('GET', '/user', { headers: { Cookie: a.cookie } })).json.remote_config as string
  ).split('|')[2];
  assert.is.not(fresh, secret);
  assert.is((await s.request('GET', signed(fresh))).status, 200);
  const stranger = await s.request(
    'GET',
    remoteSigned({ host, path: '/user', user: 'nobody', secret: fresh, at: now() }),
  );
  assert.equal([stranger.status, stranger.json.message], [401, 'auth_remote_user_rejected']);
});

test("remote_config is the user's own: an admin reading another user gets null (no secret is made), and so does an application acting as the user", async () => {
  await s.app.services.accounts.addUser('kim', ['kim@example.org'], 'kim password');
  const root = await login(s, 'root', 'root password');
  const seen = await s.request('GET', '/user/kim', { headers: { Cookie: root.cookie } });
  assert.equal([seen.status, seen.json.id, seen.json.remote_config], [200, 'kim', null]);
  assert.not.ok(await s.app.services.users.hasRemoteSecret('kim'), 'looking did not create a secret');
  const asKim = await s.request('GET', asApp('GET', '/user', { remote_user: 'kim' }));
  assert.equal([asKim.status, asKim.json.id, asKim.json.remote_config], [200, 'kim', null]);
  const own = await s.request('GET', '/user/root', { headers: { Cookie: root.cookie } });
  assert.match(own.json.remote_config, /\|root\|[0-9a-f]{64}$/, 'an admin reading itself sees its own');
  const k = await login(s, 'kim', 'kim password');
  assert.match(
    (await s.request('GET', '/user', { headers: { Cookie: k.cookie } })).json.remote_config,
    /\|kim\|[0-9a-f]{64}$/,
  );
});

test("a signed chunk's body is never held: an unknown application or a user without a secret is refused before it is read, and a real signer's chunk is checked for access first", async () => {
  const big = Buffer.alloc(1024 * 1024 + 65 * 1024, 7); // past upload_chunk_size + slack: 413 when buffered
  const put = (args: Record<string, string | number>) =>
    s.request(
      'PUT',
      signedPath({
        method: 'PUT',
        host,
        path: '/file/1/chunk/0',
        args: { timestamp: now(), ...args },
        secret: portal,
        body: big,
      }),
      {
        body: big,
        headers: { 'content-type': 'application/octet-stream' },
      },
    );
  const ghost = await put({ remote_application: 'ghost' });
  assert.equal([ghost.status, ghost.json.message], [401, 'auth_remote_unknown_application']);
  const nobody = await put({ remote_user: 'no-secret-user' });
  assert.equal([nobody.status, nobody.json.message], [401, 'auth_remote_user_rejected']);
  const real = await put({ remote_application: 'portal', remote_user: 'uploader' });
  assert.equal([real.status, real.json.message], [404, 'file_not_found'], 'refused before its body is read: no file');
});

test("a path with characters the client's HTTP library percent-encodes: signed as written, sent encoded", async () => {
  const p = remoteSigned({ host, path: '/echo/a b', app: 'portal', user: 'pe', secret: portal, at: now() });
  const r = await s.request('GET', p.replace('/echo/a b', '/echo/a%20b'));
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.user, r.json.args], ['pe', ['a b']]);
});

test('`from` under the signed modes is taken as is, with a format check only', async () => {
  let n = 0;
  const create = (from: string) => {
    const body = JSON.stringify({
      files: [{ name: 'f.bin', size: 1 }],
      recipients: ['r@example.org'],
      from,
      expires: inAWeek(),
    });
    return s.request(
      'POST',
      asApp('POST', '/transfer', { remote_user: 'alice', timestamp: now() + ++n }, portal, body),
      { body, headers: JSON_HEADERS },
    );
  };
  assert.is((await create('someone.else@example.net')).status, 201);
  const bad = await create('not an address');
  assert.equal([bad.status, bad.json.message], [400, 'bad_email']);
});

/** The one file of a Transfer that the portal creates as the user `uploader`, signed (201 or the test fails). */
async function uploaderFile(name: string, size: number) {
  const body = JSON.stringify({
    files: [{ name, size }],
    recipients: ['r@example.org'],
    from: 'up@example.org',
    expires: inAWeek(),
  });
  const t = await s.request('POST', asApp('POST', '/transfer', { remote_user: 'uploader' }, portal, body), {
    body,
    headers: JSON_HEADERS,
  });
  assert.is(t.status, 201, t.text);
  return t.json.files[0];
}

test('a signed chunk upload: the signature covers the bytes; a stale one is too late; a body past the chunk size is 413', async () => {
  const fileId = (await uploaderFile('c.bin', 6)).id;
  const chunk = Buffer.from('abcdef');
  const put = (ts: number, data = chunk, contentType = 'application/octet-stream') =>
    s.request(
      'PUT',
      asApp('PUT', `/file/${fileId}/chunk/0`, { remote_user: 'uploader', timestamp: ts }, portal, data),
      { body: data === chunk ? chunk : data, headers: { 'content-type': contentType } },
    );
  const tampered = await s.request(
    'PUT',
    asApp('PUT', `/file/${fileId}/chunk/0`, { remote_user: 'uploader' }, portal, chunk),
    { body: Buffer.from('abcdeX'), headers: { 'content-type': 'application/octet-stream' } },
  );
  assert.equal([tampered.status, tampered.json.message], [401, 'auth_remote_signature_check_failed']);
  const stale = await put(now() - 60);
  assert.equal([stale.status, stale.json.message], [401, 'auth_remote_too_late']);
  const ok = await put(now());
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.json.received, 6);
  const big = Buffer.alloc(1024 * 1024 + 65 * 1024, 1);
  const tooBig = await put(now() + 1, big);
  assert.is(tooBig.status, 413);
});

test('signed chunks of a full chunk size (checked beside the event loop) are stored and their digest is of the bytes sent', async () => {
  const data = Buffer.alloc(2 * 1024 * 1024 + 5);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 251;
  const fileId = (await uploaderFile('big.bin', data.length)).id;
  const MiB = 1024 * 1024;
  let n = 0;
  const put = (offset: number, part: Buffer, sent = part) =>
    s.request(
      'PUT',
      asApp(
        'PUT',
        `/file/${fileId}/chunk/${offset}`,
        { remote_user: 'uploader', timestamp: now() + ++n },
        portal,
        part,
      ),
      { body: sent, headers: { 'content-type': 'application/octet-stream' } },
    );
  const forged = Buffer.from(data.subarray(0, MiB));
  forged[MiB - 1] ^= 0xff;
  const bad = await put(0, data.subarray(0, MiB), forged);
  assert.equal([bad.status, bad.json.message], [401, 'auth_remote_signature_check_failed']);
  const sent = await Promise.all([0, MiB, 2 * MiB].map((o) => put(o, data.subarray(o, o + MiB))));
  assert.equal(
    sent.map((r) => r.status),
    [200, 200, 200],
  );
  const done = await s.request(
    'PUT',
    asApp('PUT', `/file/${fileId}`, { remote_user: 'uploader', timestamp: now() + ++n }, portal, '{"complete":true}'),
    { body: '{"complete":true}', headers: JSON_HEADERS },
  );
  assert.is(done.status, 200, done.text);
  // At completion on the filesystem, a moment later on S3 (read back by a background job).
  let digest: string | null = null;
  await until(
    'the SHA-256',
    async () => {
      const f = await s.request(
        'GET',
        asApp('GET', `/file/${fileId}`, { remote_user: 'uploader', timestamp: now() + ++n }, portal),
      );
      digest = f.json.sha256;
      return digest !== null;
    },
    15_000,
  );
  assert.is(digest, crypto.createHash('sha256').update(data).digest('hex'));
});

test("with remote-user mode off: remote_config is null and a user's signature opens nothing; with remote applications off they are not heard", async () => {
  const t = await startTestServer({
    auth: { sp: { type: 'local' }, remote_user_enabled: false, remote_application_enabled: false },
  });
  try {
    await t.app.services.accounts.addUser('alice', ['alice@example.org'], 'correct horse');
    const a = await login(t, 'alice', 'correct horse');
    assert.is((await t.request('GET', '/user', { headers: { Cookie: a.cookie } })).json.remote_config, null);
    const h = new URL(t.url).host;
    const secret = await t.app.services.users.remoteSecret('alice');
    const asUser = await t.request('GET', remoteSigned({ host: h, path: '/user', user: 'alice', secret }));
    assert.equal([asUser.status, asUser.json.message], [401, 'rest_authentication_required']);
    const appSecret = await t.app.services.accounts.addRemoteApp('portal', true);
    const asApp2 = await t.request(
      'GET',
      remoteSigned({ host: h, path: '/transfer/@all', app: 'portal', secret: appSecret }),
    );
    assert.equal([asApp2.status, asApp2.json.message], [401, 'rest_authentication_required']);
  } finally {
    await t.close();
  }
});

test('no secret or signature reaches the log', async () => {
  const p = asApp('GET', '/echo', { remote_user: 'logcheck' });
  await s.request('GET', p);
  const signature = /signature=([0-9a-f]{40})/.exec(p)![1];
  const text = logged.lines.join('\n');
  assert.ok(text.includes('GET /echo'), 'requests are logged');
  for (const secret of [portal, ops, signature]) assert.not.ok(text.includes(secret));
});

test.run();
