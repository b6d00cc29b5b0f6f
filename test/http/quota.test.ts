import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, TestServer } from '../helpers/server';
import { inAWeek } from '../helpers/upload-client';

// Quotas at POST /transfer: the config's user_quota and host_quota, an admin's per-user override, PUT /config
// changing them at run time; what counts (transfers not closed) and what a user is told (GET /user/@me/quota).
let s: TestServer;
const boss = asUser('boss');

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, admin: ['boss'], user_quota: 1000, host_quota: 0 });
});
test.after(() => s.close());

const body = (size: number, from: string) => ({
  files: [{ name: 'a', size }],
  recipients: ['r@example.org'],
  from,
  expires: inAWeek(),
});
const send = (user: string, size: number) =>
  s.request('POST', '/transfer', { headers: asUser(user), json: body(size, `${user}@example.org`) });

test('user_quota: a transfer that fits is taken, one that would pass is refused 413 with the figures; none is stored', async () => {
  assert.is((await send('amy', 600)).status, 201);
  const r = await send('amy', 401);
  assert.equal(
    [r.status, r.json.message, r.json.details],
    [413, 'transfer_user_quota_exceeded', ['quota=1000', 'used=600', 'requested=401']],
  );
  assert.is((await s.request('GET', '/transfer', { headers: asUser('amy') })).json.length, 1);
  assert.is((await send('amy', 400)).status, 201); // exactly at the limit
  const me = await s.request('GET', '/user/@me/quota', { headers: asUser('amy') });
  assert.equal(me.json, { quota: 1000, used: 1000, own: false });
  // Another user has a quota of their own.
  assert.is((await send('ben', 1000)).status, 201);
});

test('transfers created at the same moment cannot together pass the quota', async () => {
  const answers = await Promise.all(Array.from({ length: 8 }, () => send('gil', 400)));
  assert.equal(answers.map((r) => r.status).sort(), [201, 201, 413, 413, 413, 413, 413, 413]);
  assert.equal((await s.request('GET', '/user/@me/quota', { headers: asUser('gil') })).json.used, 800);
});

test('a closed transfer no longer counts', async () => {
  const t = await send('cleo', 900);
  assert.is((await send('cleo', 200)).status, 413);
  assert.is(
    (await s.request('PUT', `/transfer/${t.json.id}`, { headers: asUser('cleo'), json: { closed: true } })).status,
    200,
  );
  assert.is((await send('cleo', 200)).status, 201);
});

test('per-user override set by an admin: more, none (0), or back to the default (null)', async () => {
  assert.is((await send('dora', 1)).status, 201); // dora now exists
  const set = (quota: unknown) => s.request('PUT', '/user/dora/quota', { headers: boss, json: { quota } });
  assert.is((await set(5000)).status, 200);
  assert.is((await send('dora', 4000)).status, 201);
  const over = await send('dora', 1000);
  assert.equal([over.status, over.json.details], [413, ['quota=5000', 'used=4001', 'requested=1000']]);
  assert.equal((await s.request('GET', '/user/@me/quota', { headers: asUser('dora') })).json, {
    quota: 5000,
    used: 4001,
    own: true,
  });
  assert.is((await set(0)).status, 200);
  assert.is((await send('dora', 100000)).status, 201);
  assert.is((await set(null)).status, 200);
  assert.is((await send('dora', 1)).json.message, 'transfer_user_quota_exceeded');
  for (const bad of [-1, 1.5, 'big']) {
    const r = await set(bad);
    assert.equal([r.status, r.json.message, r.json.details], [400, 'rest_bad_parameter', ['quota']]);
  }
  const unknown = await s.request('PUT', '/user/nobody/quota', { headers: boss, json: { quota: 1 } });
  assert.equal([unknown.status, unknown.json.message], [404, 'user_not_found']);
  const notAdmin = await s.request('PUT', '/user/dora/quota', { headers: asUser('dora'), json: { quota: 0 } });
  assert.equal([notAdmin.status, notAdmin.json.message], [403, 'rest_admin_required']);
  const list = (await s.request('GET', '/user/@all', { headers: boss })).json;
  assert.equal(list.find((u: any) => u.id === 'dora').quota, 1000);
});

test('host_quota through PUT /config: all open transfers together; refused 413 transfer_host_quota_exceeded; 0 lifts it', async () => {
  const put = (json: unknown) => s.request('PUT', '/config', { headers: boss, json });
  assert.is((await put({ user_quota: 0, host_quota: 1 })).status, 200);
  assert.equal((await s.request('GET', '/config', { headers: boss })).json.user_quota, 0);
  const used = (await s.request('GET', '/storage', { headers: boss })).json.host_used;
  assert.ok(used > 100000);
  assert.is((await put({ host_quota: used + 50 })).status, 200);
  assert.is((await send('eli', 50)).status, 201);
  const r = await send('eli', 1);
  assert.equal(
    [r.status, r.json.message, r.json.details],
    [413, 'transfer_host_quota_exceeded', [`quota=${used + 50}`, `used=${used + 50}`, 'requested=1']],
  );
  // The user's own quota is checked first and named when both are passed.
  assert.is((await put({ user_quota: 10 })).status, 200);
  assert.is((await send('eli', 100)).json.message, 'transfer_user_quota_exceeded');
  const bad = await put({ host_quota: -5 });
  assert.equal([bad.status, bad.json.message], [400, 'rest_bad_parameter']);
  assert.is((await put({ user_quota: 0, host_quota: 0 })).status, 200);
  assert.is((await send('eli', 10 ** 9)).status, 201);
});

test('a guest upload counts against the user who invited the guest', async () => {
  await s.request('PUT', '/config', { headers: boss, json: { user_quota: 1000 } });
  const g = await s.request('POST', '/guest', {
    headers: asUser('fay'),
    json: {
      recipient: 'guest@example.org',
      from: 'fay@example.org',
      options: { can_only_send_to_me: true },
      expires: inAWeek(),
    },
  });
  assert.is(g.status, 201, g.text);
  assert.is((await send('fay', 800)).status, 201);
  const r = await s.request('POST', `/transfer?vid=${g.json.token}`, {
    json: {
      files: [{ name: 'g', size: 300 }],
      recipients: ['fay@example.org'],
      from: 'guest@example.org',
      expires: inAWeek(),
    },
  });
  assert.equal([r.status, r.json.message], [413, 'transfer_user_quota_exceeded']);
  await s.request('PUT', '/config', { headers: boss, json: { user_quota: 0 } });
});

test.run();
