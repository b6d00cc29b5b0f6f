import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request, startTestServer, TestServer } from '../helpers/server';
import { inAWeek } from '../helpers/upload-client';

// Service provider "header": a reverse proxy authenticates and passes uid and e-mail(s) in headers, which
// count only when the TCP peer is one of trusted_proxies.
const SP = { type: 'header', uid_header: 'X-Forwarded-User', email_header: 'X-Forwarded-Mail' };
let trusted: TestServer;
let untrusted: TestServer;

test.before(async () => {
  trusted = await startTestServer({ admin: ['boss'], auth: { sp: { ...SP, trusted_proxies: ['127.0.0.1', '::1'] } } });
  untrusted = await startTestServer({ admin: ['boss'], auth: { sp: { ...SP, trusted_proxies: ['10.9.9.9'] } } });
});
test.after(async () => {
  await trusted.close();
  await untrusted.close();
});

const hdr = (uid: string, mail?: string) => ({
  'X-Forwarded-User': uid,
  ...(mail === undefined ? {} : { 'X-Forwarded-Mail': mail }),
});

test('from a trusted proxy: the user, created on first sight with every address given; later sights update them', async () => {
  const r = await request(trusted.url, 'GET', '/user', {
    headers: hdr('proxyuser', 'p@example.org; second@example.org,not-an-address'),
  });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.id, 'proxyuser');
  assert.equal(r.json.email, ['p@example.org', 'second@example.org'], 'a malformed value is dropped');
  const later = await request(trusted.url, 'GET', '/user', { headers: hdr('proxyuser', 'new@example.org') });
  assert.equal(later.json.email, ['new@example.org']);
  const echo = await request(trusted.url, 'GET', '/echo', { headers: hdr('proxyuser', 'new@example.org') });
  assert.equal(
    [echo.json.user, echo.json.auth.remote, echo.json.auth.attr],
    ['proxyuser', false, { uid: 'proxyuser', email: ['new@example.org'] }],
  );
});

test('from anyone else the headers are ignored: anonymous, whatever they claim (even an admin id)', async () => {
  for (const path of ['/user', '/transfer/@all']) {
    const r = await request(untrusted.url, 'GET', path, { headers: hdr('boss', 'boss@example.org') });
    assert.equal([r.status, r.json.message], [401, 'rest_authentication_required'], path);
  }
  assert.is((await request(untrusted.url, 'GET', '/echo', { headers: hdr('boss') })).json.user, null);
  assert.is((await request(untrusted.url, 'GET', '/info')).status, 200);
});

test('a trusted proxy without the uid header: anonymous; the config admin is an admin', async () => {
  assert.is(
    (await request(trusted.url, 'GET', '/user', { headers: { 'X-Forwarded-Mail': 'x@example.org' } })).status,
    401,
  );
  assert.is(
    (await request(trusted.url, 'GET', '/transfer/@all', { headers: hdr('boss', 'boss@example.org') })).status,
    200,
  );
  assert.is(
    (await request(trusted.url, 'GET', '/transfer/@all', { headers: hdr('proxyuser') })).json.message,
    'rest_admin_required',
  );
});

test('no security token is asked (no session of ours), but a change posted from another site is refused', async () => {
  const body = { recipient: 'g@example.org', from: 'p@example.org' };
  const ok = await request(trusted.url, 'POST', '/guest', { json: body, headers: hdr('proxyuser', 'p@example.org') });
  assert.is(ok.status, 201, ok.text);
  const sameSite = await request(trusted.url, 'POST', '/guest', {
    json: body,
    headers: { ...hdr('proxyuser', 'p@example.org'), Origin: trusted.url },
  });
  assert.is(sameSite.status, 201);
  // A form on another site would reach us with the proxy's own session cookie: Origin gives it away.
  const crossSite = await request(trusted.url, 'POST', '/transfer', {
    body: `from=p%40example.org&recipients=r%40example.org&expires=${inAWeek()}`,
    headers: {
      ...hdr('proxyuser', 'p@example.org'),
      Origin: 'https://evil.example',
      'content-type': 'application/x-www-form-urlencoded',
    },
  });
  assert.equal([crossSite.status, crossSite.json.message], [403, 'rest_security_token_did_not_match']);
  const list = await request(trusted.url, 'GET', '/guest', { headers: hdr('proxyuser') });
  assert.is(list.json.length, 2, 'only the two same-site invitations');
});

test.run();
