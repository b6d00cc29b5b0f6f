import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TestServer, HEADER_SP, asUser } from '../helpers/server';
import { login, withSession } from '../helpers/session';

// A local account's e-mail addresses (the first is the From of what it sends and the Reply-To): set by its
// owner (PUT /user/@me/email) or by an admin (PUT /user/{id}/email), checked as any address; refused for
// accounts whose identity provider gives the addresses at each sign-in.
let s: TestServer;
test.before(async () => {
  s = await startTestServer({ auth: { sp: { type: 'local' } }, admin: ['boss'] });
  await s.app.services.accounts.addUser('alice', ['alice@example.org'], 'correct horse');
  await s.app.services.accounts.addUser('boss', ['boss@example.org'], 'battery staple');
});
test.after(() => s.close());

test('a local user sets their own addresses; a bad one is refused with the field named', async () => {
  const a = await login(s, 'alice', 'correct horse');
  const ok = await s.request('PUT', '/user/@me/email', {
    headers: withSession(a),
    json: { email: 'alice@work.example, a@home.example' },
  });
  assert.equal([ok.status, ok.json], [200, true]);
  assert.equal((await s.request('GET', '/user', { headers: { Cookie: a.cookie } })).json.email, [
    'alice@work.example',
    'a@home.example',
  ]);
  const bad = await s.request('PUT', '/user/@me/email', { headers: withSession(a), json: { email: 'not an address' } });
  assert.equal([bad.status, bad.json.message, bad.json.details], [400, 'bad_email', ['email']]);
  const none = await s.request('PUT', '/user/@me/email', { headers: withSession(a), json: {} });
  assert.equal([none.status, none.json.message], [400, 'rest_missing_parameter']);
  const noToken = await s.request('PUT', '/user/@me/email', {
    headers: { Cookie: a.cookie },
    json: { email: 'x@example.org' },
  });
  assert.is(noToken.status, 403);
});

test('an admin sets a user’s address; a user may not set another’s; an unknown id is 404', async () => {
  const boss = await login(s, 'boss', 'battery staple');
  const ok = await s.request('PUT', '/user/alice/email', {
    headers: withSession(boss),
    json: { email: ['alice@corp.example'] },
  });
  assert.equal([ok.status, ok.json], [200, true]);
  const list = (await s.request('GET', '/user/@all', { headers: { Cookie: boss.cookie } })).json as {
    id: string;
    emails: string[];
  }[];
  assert.equal(list.find((u) => u.id === 'alice')!.emails, ['alice@corp.example']);
  const a = await login(s, 'alice', 'correct horse');
  const refused = await s.request('PUT', '/user/boss/email', {
    headers: withSession(a),
    json: { email: 'evil@example.org' },
  });
  assert.equal([refused.status, refused.json.message], [403, 'rest_admin_required']);
  const unknown = await s.request('PUT', '/user/nobody/email', {
    headers: withSession(boss),
    json: { email: 'n@example.org' },
  });
  assert.equal([unknown.status, unknown.json.message], [404, 'user_not_found']);
});

test('with a header SP the proxy owns the addresses: refused', async () => {
  const h = await startTestServer({ ...HEADER_SP, admin: ['root'] });
  try {
    const r = await h.request('PUT', '/user/@me/email', {
      headers: asUser('alice'),
      json: { email: 'other@example.org' },
    });
    assert.equal([r.status, r.json.message], [403, 'rest_access_forbidden']);
  } finally {
    await h.close();
  }
});

test.run();
