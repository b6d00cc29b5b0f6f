import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TestServer, HEADER_SP, asUser } from '../helpers/server';

// The Guest resource: POST/GET/PUT/DELETE /guest…, validation, ownership and the admin view.
let s: TestServer;
const DAY = 86400;
const now = () => Math.floor(Date.now() / 1000);

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, admin: ['boss'] });
});
test.after(async () => s.close());

async function createGuest(user = 'alice', body: Record<string, unknown> = {}) {
  const r = await s.request('POST', '/guest', {
    headers: asUser(user),
    json: { recipient: `guest-of-${user}@example.net`, ...body },
  });
  assert.is(r.status, 201, r.text);
  return r.json;
}

test('POST /guest: 201, Location, the spec Guest shape with upload_url', async () => {
  const before = now();
  const r = await s.request('POST', '/guest', {
    headers: asUser('alice'),
    json: {
      recipient: 'gus@example.net',
      from: 'alice@example.org',
      subject: 'Scans',
      message: 'Please send the scans',
      options: ['can_only_send_to_me'],
      transfer_options: ['email_download_complete'],
    },
  });
  assert.is(r.status, 201, r.text);
  const g = r.json;
  assert.is(r.headers.get('location'), `${s.url}/guest/${g.id}`);
  assert.type(g.id, 'number');
  assert.is(g.user_id, 'alice');
  assert.is(g.user_email, 'alice@example.org');
  assert.is(g.email, 'gus@example.net');
  assert.match(g.token, /^[0-9a-f]{40}$/);
  assert.is(g.transfer_count, 0);
  assert.is(g.subject, 'Scans');
  assert.is(g.message, 'Please send the scans');
  // email_guest_created is on unless turned off: the invitation is sent, as the spec says.
  assert.equal(g.options, ['can_only_send_to_me', 'email_guest_created']);
  assert.equal(g.transfer_options, ['email_download_complete']);
  assert.ok(g.created.raw >= before && g.created.raw <= now());
  assert.match(g.created.formatted, /^\d{1,2} [A-Z][a-z]{2,3} \d{4}$/);
  // No expires given: default_guest_days_valid (20) from now.
  assert.ok(Math.abs(g.expires.raw - (g.created.raw + 20 * DAY)) <= 1);
  assert.equal(g.errors, []);
  assert.is(g.upload_url, `${s.url}/?s=upload&vid=${g.token}`);
  assert.is(g.status, 'available');

  const again = await s.request('GET', `/guest/${g.id}`, { headers: asUser('alice') });
  assert.is(again.status, 200);
  assert.equal(again.json, g);
});

test('tokens are distinct per Guest', async () => {
  const a = await createGuest();
  const b = await createGuest();
  assert.is.not(a.token, b.token);
});

test("from: defaults to the first address, must be one of the user's own under the Service Provider", async () => {
  const two = { 'X-Remote-User': 'carol', 'X-Remote-Email': 'carol@example.org, c.work@example.com' };
  const d = await s.request('POST', '/guest', { headers: two, json: { recipient: 'x@example.net' } });
  assert.is(d.status, 201);
  assert.is(d.json.user_email, 'carol@example.org');
  const second = await s.request('POST', '/guest', {
    headers: two,
    json: { recipient: 'x@example.net', from: 'C.Work@example.com' },
  });
  assert.is(second.status, 201);
  assert.is(second.json.user_email, 'c.work@example.com');
  const other = await s.request('POST', '/guest', {
    headers: two,
    json: { recipient: 'x@example.net', from: 'alice@example.org' },
  });
  assert.is(other.status, 400);
  assert.is(other.json.message, 'bad_email');
  assert.equal(other.json.details, ['from']);
});

test('recipient: required and a valid address', async () => {
  const missing = await s.request('POST', '/guest', { headers: asUser('alice'), json: { subject: 'x' } });
  assert.is(missing.status, 400);
  assert.is(missing.json.message, 'rest_missing_parameter');
  assert.equal(missing.json.details, ['recipient']);
  for (const bad of ['not-an-address', 'a@', '@b.org', 'a b@c.org', 'x@y.org\r\nBcc: z@evil.org', 42]) {
    const r = await s.request('POST', '/guest', { headers: asUser('alice'), json: { recipient: bad } });
    assert.is(r.status, 400, String(bad));
    assert.is(r.json.message, 'bad_email');
    assert.equal(r.json.details, ['recipient']);
  }
});

test('expires: in the future and within max_guest_days_valid (to the end of that day)', async () => {
  const t = now();
  const lastDayEnd = Math.floor((t + 20 * DAY) / DAY) * DAY + DAY - 1;
  for (const bad of [t - 10, 0, lastDayEnd + 2 * DAY, 'soon', 1.5]) {
    const r = await s.request('POST', '/guest', {
      headers: asUser('alice'),
      json: { recipient: 'g@example.net', expires: bad },
    });
    assert.is(r.status, 400, String(bad));
    assert.is(r.json.message, 'bad_expire');
    assert.equal(r.json.details, ['expires']);
  }
  const ok = await createGuest('alice', { expires: t + 20 * DAY });
  assert.is(ok.expires.raw, t + 20 * DAY);
  const asString = await createGuest('alice', { expires: String(t + 3 * DAY) });
  assert.is(asString.expires.raw, t + 3 * DAY);
});

test('expires: the limit is read at request time (PUT /config changes it)', async () => {
  await s.app.services.settings.update({ max_guest_days_valid: 5, default_guest_days_valid: 3 });
  try {
    const t = now();
    const r = await s.request('POST', '/guest', {
      headers: asUser('alice'),
      json: { recipient: 'g@example.net', expires: t + 10 * DAY },
    });
    assert.is(r.status, 400);
    assert.is(r.json.message, 'bad_expire');
    const d = await createGuest();
    assert.ok(Math.abs(d.expires.raw - (d.created.raw + 3 * DAY)) <= 1);
  } finally {
    await s.app.services.settings.update({ max_guest_days_valid: 20, default_guest_days_valid: 20 });
  }
});

test('does_not_expire: no expiry at all, whatever expires says', async () => {
  const g = await createGuest('alice', { options: ['does_not_expire'], expires: now() + 999 * DAY });
  assert.is(g.expires, null);
  assert.ok(g.options.includes('does_not_expire'));
});

test('options and transfer_options: only the names of design §8', async () => {
  const r = await s.request('POST', '/guest', {
    headers: asUser('alice'),
    json: { recipient: 'g@example.net', options: ['can_only_send_to_me', 'frobnicate'] },
  });
  assert.is(r.status, 400);
  assert.is(r.json.message, 'bad_option_name');
  assert.equal(r.json.details, ['options[1]']);
  // A transfer option is not a guest option, and the reverse.
  const t = await s.request('POST', '/guest', {
    headers: asUser('alice'),
    json: { recipient: 'g@example.net', transfer_options: ['valid_only_one_time'] },
  });
  assert.is(t.status, 400);
  assert.is(t.json.message, 'bad_option_name');
  assert.equal(t.json.details, ['transfer_options[0]']);
  const notArray = await s.request('POST', '/guest', {
    headers: asUser('alice'),
    json: { recipient: 'g@example.net', options: 'valid_only_one_time' },
  });
  assert.is(notArray.status, 400);
  assert.is(notArray.json.message, 'rest_bad_parameter');
  assert.equal(notArray.json.details, ['options']);
});

test('options in object form can turn the default invitation off', async () => {
  const g = await createGuest('alice', {
    options: { email_guest_created: false, valid_only_one_time: true, email_upload_started: false },
  });
  assert.equal(g.options, ['valid_only_one_time']);
  const bad = await s.request('POST', '/guest', {
    headers: asUser('alice'),
    json: { recipient: 'g@example.net', options: { valid_only_one_time: 'yes' } },
  });
  assert.is(bad.status, 400);
  assert.equal(bad.json.details, ['options.valid_only_one_time']);
});

test('subject and message: strings, the subject on one line', async () => {
  const nl = await s.request('POST', '/guest', {
    headers: asUser('alice'),
    json: { recipient: 'g@example.net', subject: 'a\r\nBcc: x@y.org' },
  });
  assert.is(nl.status, 400);
  assert.equal(nl.json.details, ['subject']);
  const num = await s.request('POST', '/guest', {
    headers: asUser('alice'),
    json: { recipient: 'g@example.net', message: 12 },
  });
  assert.is(num.status, 400);
  assert.equal(num.json.details, ['message']);
  const multi = await createGuest('alice', { message: 'line 1\nline 2', subject: '' });
  assert.is(multi.message, 'line 1\nline 2');
  assert.is(multi.subject, '');
});

test('a body that is not an object is refused', async () => {
  const r = await s.request('POST', '/guest', {
    headers: { ...asUser('alice'), 'content-type': 'application/json' },
    body: '[1,2]',
  });
  assert.is(r.status, 400);
  assert.is(r.json.message, 'bad_request_body');
});

test('anonymous callers are refused', async () => {
  for (const [m, p] of [
    ['GET', '/guest'],
    ['POST', '/guest'],
    ['GET', '/guest/1'],
    ['DELETE', '/guest/1'],
    ['GET', '/guest/@all'],
  ] as const) {
    const r = await s.request(m, p, { json: m === 'POST' ? { recipient: 'g@example.net' } : undefined });
    assert.is(r.status, 401, `${m} ${p}`);
    assert.is(r.json.message, 'rest_authentication_required');
  }
});

test("GET /guest and /guest/@me list only the caller's own Guests", async () => {
  const mine = await createGuest('dave');
  const theirs = await createGuest('erin');
  for (const path of ['/guest', '/guest/@me']) {
    const r = await s.request('GET', path, { headers: asUser('dave') });
    assert.is(r.status, 200);
    const ids = r.json.map((g: { id: number }) => g.id);
    assert.ok(ids.includes(mine.id));
    assert.not.ok(ids.includes(theirs.id));
    assert.ok(r.json.every((g: { user_id: string }) => g.user_id === 'dave'));
  }
});

test("another user's Guest: 404 like an unknown id on read, remind and delete; unknown id 404; bad id 400", async () => {
  const g = await createGuest('alice');
  for (const [m, json] of [
    ['GET', undefined],
    ['PUT', { remind: true }],
    ['DELETE', undefined],
  ] as const) {
    const r = await s.request(m, `/guest/${g.id}`, { headers: asUser('mallory'), json });
    assert.is(r.status, 404, m);
    assert.is(r.json.message, 'guest_not_found');
  }
  const still = await s.request('GET', `/guest/${g.id}`, { headers: asUser('alice') });
  assert.is(still.json.status, 'available');
  const none = await s.request('GET', '/guest/999999', { headers: asUser('alice') });
  assert.equal([none.status, none.json.message], [404, 'guest_not_found']);
  const bad = await s.request('GET', '/guest/abc', { headers: asUser('alice') });
  assert.equal([bad.status, bad.json.message], [400, 'rest_bad_parameter']);
});

test("admin: GET /guest/@all lists everyone's Guests, and an admin owns any Guest", async () => {
  const a = await createGuest('frank');
  const b = await createGuest('grace');
  const all = await s.request('GET', '/guest/@all', { headers: asUser('boss') });
  assert.is(all.status, 200);
  const ids = all.json.map((g: { id: number }) => g.id);
  assert.ok(ids.includes(a.id) && ids.includes(b.id));
  const one = await s.request('GET', `/guest/${a.id}`, { headers: asUser('boss') });
  assert.is(one.status, 200);
  assert.is(one.json.user_id, 'frank');
  const notAdmin = await s.request('GET', '/guest/@all', { headers: asUser('frank') });
  assert.equal([notAdmin.status, notAdmin.json.message], [403, 'rest_admin_required']);
});

test('PUT /guest/{id}: remind answers true; a non-boolean remind is refused', async () => {
  const g = await createGuest('alice');
  const r = await s.request('PUT', `/guest/${g.id}`, { headers: asUser('alice'), json: { remind: true } });
  assert.is(r.status, 200);
  assert.is(r.json, true);
  const nothing = await s.request('PUT', `/guest/${g.id}`, { headers: asUser('alice'), json: {} });
  assert.is(nothing.json, true);
  const bad = await s.request('PUT', `/guest/${g.id}`, { headers: asUser('alice'), json: { remind: 'yes' } });
  assert.is(bad.status, 400);
  assert.equal(bad.json.details, ['remind']);
});

test('DELETE /guest/{id}: closes the Guest, keeps its record, leaves the list; twice is harmless', async () => {
  const g = await createGuest('henry');
  const d = await s.request('DELETE', `/guest/${g.id}`, { headers: asUser('henry') });
  assert.is(d.status, 200);
  assert.is(d.json, true);
  const list = await s.request('GET', '/guest', { headers: asUser('henry') });
  assert.not.ok(list.json.some((x: { id: number }) => x.id === g.id));
  const one = await s.request('GET', `/guest/${g.id}`, { headers: asUser('henry') });
  assert.is(one.status, 200);
  assert.is(one.json.status, 'closed');
  const again = await s.request('DELETE', `/guest/${g.id}`, { headers: asUser('henry') });
  assert.is(again.json, true);
  const remind = await s.request('PUT', `/guest/${g.id}`, { headers: asUser('henry'), json: { remind: true } });
  assert.is(remind.status, 409);
  assert.is(remind.json.message, 'guest_closed');
});

test("errors: the Guest's tracking errors are listed", async () => {
  const g = await createGuest('ivy');
  await s.app.db.query(
    "INSERT INTO tracking_errors (target_type, target_id, type, date, details) VALUES ('Guest', ?, 'bounce', ?, '550 no such user')",
    [g.id, 1_700_000_000],
  );
  const r = await s.request('GET', `/guest/${g.id}`, { headers: asUser('ivy') });
  assert.equal(r.json.errors, [
    { type: 'bounce', date: { raw: 1_700_000_000, formatted: '14 Nov 2023' }, details: '550 no such user' },
  ]);
});

test('closeExpired: closes open Guests past expiry, not does_not_expire ones', async () => {
  const t = now();
  const short = await createGuest('jack', { expires: t + DAY });
  const forever = await createGuest('jack', { options: ['does_not_expire'] });
  const closed = await s.app.services.guests.closeExpired(t + 2 * DAY);
  const ids = closed.map((g) => g.id);
  assert.ok(ids.includes(short.id));
  assert.not.ok(ids.includes(forever.id));
  assert.ok(closed.every((g) => g.status === 'closed'));
  assert.equal(
    (await s.app.services.guests.closeExpired(t + 2 * DAY)).filter((g) => g.id === short.id),
    [],
  );
  const list = await s.request('GET', '/guest', { headers: asUser('jack') });
  assert.equal(
    list.json.map((g: { id: number }) => g.id),
    [forever.id],
  );
});

test.run();
