import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, TestServer, sql, sqlOne } from '../helpers/server';
import { inAWeek, sendChunks } from '../helpers/upload-client';
import { createTransfer } from '../helpers/factories';

// The good side of POST /transfer's rules (limits reached exactly, every accepted form), the status machine,
// the lists, the audit log's content, frequent recipients and the recipient endpoints' own rules.
// (The refusals are in transfer.test.ts; `from` under the signed modes in auth-remote.test.ts.)
let s: TestServer;
const DAY = 86400;
const alice = asUser('alice', 'alice@example.org;Alice.Work@Example.net');
const now = () => Math.floor(Date.now() / 1000);

test.before(async () => {
  s = await startTestServer({
    ...HEADER_SP,
    admin: ['boss'],
    max_transfer_files: 3,
    max_transfer_recipients: 3,
    max_transfer_size: 3000,
    max_transfer_days_valid: 5,
    default_transfer_days_valid: 3,
  });
});
test.after(() => s.close());

const body = (over: Record<string, unknown> = {}) => ({
  files: [{ name: 'a', size: 1 }],
  recipients: ['r@example.org'],
  from: 'alice@example.org',
  expires: inAWeek() - 3 * DAY,
  ...over,
});
// This file's transfers end three days sooner than the factory's (its max_transfer_days_valid is 5).
const create = (over: Record<string, unknown> = {}, headers = alice) => createTransfer(s, body(over), headers);

test('limits reached exactly are accepted: files, recipients, total size, the last allowed day', async () => {
  const last = now() + 5 * DAY;
  const t = await create({
    files: [
      { name: 'a', size: 1000 },
      { name: 'b', size: 1000 },
      { name: 'c', size: 1000 },
    ],
    recipients: ['a@example.org', 'b@example.org', 'c@example.org'],
    expires: last,
  });
  assert.is(t.files.length, 3);
  assert.is(t.recipients.length, 3);
  assert.is(t.expires.raw, last);
  const asText = await create({ expires: String(last - DAY) });
  assert.is(asText.expires.raw, last - DAY);
  const dup = await create({ recipients: ['x@example.org', 'X@example.org', 'y@example.org'] });
  assert.equal(
    dup.recipients.map((r: any) => r.email),
    ['x@example.org', 'y@example.org'],
    'one recipient per address',
  );
});

test("from may be any of the user's addresses (case aside); options as names or as FileSender's object form", async () => {
  assert.is((await create({ from: 'alice.work@example.net' })).user_email, 'alice.work@example.net');
  const named = await create({ options: ['email_report_on_closing', 'email_download_complete'] });
  assert.equal(named.options, ['email_download_complete', 'email_report_on_closing']);
  const obj = await create({ options: { email_upload_complete: true, get_a_link: false } });
  assert.equal(obj.options, ['email_upload_complete']);
  const bad = await s.request('POST', '/transfer', { headers: alice, json: body({ options: { nope: true } }) });
  assert.equal([bad.status, bad.json.message, bad.json.details], [400, 'bad_option_name', ['options.nope']]);
  const badName = await s.request('POST', '/transfer', {
    headers: alice,
    json: body({ options: ['email_me_copies', 'nope'] }),
  });
  assert.equal(badName.json.details, ['options[1]']);
});

test('file fields: mime_type kept, cid only in the create response, subject and message as given', async () => {
  const t = await create({
    files: [
      { name: 'r.pdf', size: 2, mime_type: 'application/pdf', cid: 'client-1' },
      { name: 'n', size: 1 },
    ],
    subject: 'Ünïcode ✓',
    message: 'line 1\nline 2',
  });
  assert.equal(
    t.files.map((f: any) => [f.name, f.mime_type, f.cid]),
    [
      ['r.pdf', 'application/pdf', 'client-1'],
      ['n', null, undefined],
    ],
  );
  assert.equal([t.subject, t.message], ['Ünïcode ✓', 'line 1\nline 2']);
  const again = (await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json;
  assert.not.ok('cid' in again.files[0]);
  assert.is(again.files[0].mime_type, 'application/pdf');
  assert.match(again.files[0].uid, /^[0-9a-f]{32}$/);
  assert.is.not(again.files[0].uid, again.files[1].uid);
});

test('statuses: started after POST, uploading with the first chunk, available on completion, closed; visible until purge', async () => {
  const t = await create();
  assert.is(t.status, 'started');
  const status = async () => (await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json.status;
  await sendChunks(s.request, t.files[0].id, Buffer.from('x'), 1024, { headers: alice });
  assert.is(await status(), 'uploading');
  await s.request('PUT', `/file/${t.files[0].id}`, { headers: alice, json: { complete: true } });
  assert.is(await status(), 'uploading');
  assert.is(
    (await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } })).json.status,
    'available',
  );
  const late = await s.request('PUT', `/file/${t.files[0].id}/chunk/0`, {
    headers: { ...alice, 'content-type': 'application/octet-stream' },
    body: Buffer.from('y'),
  });
  assert.equal([late.status, late.json.message], [409, 'cannot_add_data_to_complete_transfer']);
  await s.request('DELETE', `/transfer/${t.id}`, { headers: alice });
  assert.is(await status(), 'closed');
  assert.ok(
    (await s.request('GET', '/transfer', { headers: alice })).json.some(
      (x: any) => x.id === t.id && x.status === 'closed',
    ),
  );
  const closed = await s.request('PUT', `/file/${t.files[0].id}/chunk/0`, {
    headers: { ...alice, 'content-type': 'application/octet-stream' },
    body: Buffer.from('y'),
  });
  assert.equal([closed.status, closed.json.message], [409, 'cannot_alter_closed_transfer']);
  const add = await s.request('POST', `/transfer/${t.id}/recipient`, {
    headers: alice,
    json: { recipient: 'late@example.org' },
  });
  assert.equal([add.status, add.json.message], [409, 'cannot_alter_closed_transfer']);
  assert.is(
    (await s.request('DELETE', `/transfer/${t.id}`, { headers: alice })).json,
    true,
    'deleting twice is harmless',
  );
});

test("lists: GET /transfer and @me give the caller's own, newest first; GET /transfer/{id}/options", async () => {
  const carol = asUser('carol');
  const first = await create({ from: 'carol@example.org' }, carol);
  const second = await create({ from: 'carol@example.org', options: ['email_me_copies'] }, carol);
  const list = (await s.request('GET', '/transfer', { headers: carol })).json;
  assert.equal(
    list.map((t: any) => t.id),
    [second.id, first.id],
  );
  assert.equal((await s.request('GET', '/transfer/@me', { headers: carol })).json, list);
  assert.equal((await s.request('GET', `/transfer/${second.id}/options`, { headers: carol })).json, [
    'email_me_copies',
  ]);
  assert.is((await s.request('GET', `/transfer/${second.id}/options`, { headers: alice })).status, 404);
  assert.ok((await s.request('GET', '/transfer/@all', { headers: asUser('boss') })).json.length >= 2);
  assert.is((await s.request('GET', '/transfer')).status, 401);
});

test('PUT /transfer: unknown fields and non-booleans are refused; extensions run out (409)', async () => {
  const t = await create();
  const unknown = await s.request('PUT', `/transfer/${t.id}`, {
    headers: alice,
    json: { complete: true, colour: 'red' },
  });
  assert.equal([unknown.status, unknown.json.details], [400, ['colour']]);
  const notBool = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { closed: 1 } });
  assert.equal([notBool.status, notBool.json.details], [400, ['closed']]);
  assert.is(
    (await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json.status,
    'started',
    'nothing changed',
  );
  const none = await startTestServer({ ...HEADER_SP, allow_transfer_expiry_date_extension: [] });
  try {
    const r = await none.request('POST', '/transfer', { headers: alice, json: body() });
    assert.is(r.json.expiry_date_extension, 0);
    const ext = await none.request('PUT', `/transfer/${r.json.id}`, {
      headers: alice,
      json: { extend_expiry_date: true },
    });
    assert.equal([ext.status, ext.json.message], [409, 'transfer_expiry_extension_count_exceeded']);
  } finally {
    await none.close();
  }
});

test("audit log: the whole procedure in order, authors and targets in the spec's shape; a chunk key acts as the owner", async () => {
  const t = await create({ files: [{ name: 'doc.txt', size: 3 }] });
  const key = `?key=${t.files[0].uid}`;
  await sendChunks(s.request, t.files[0].id, Buffer.from('abc'), 1024, { query: key });
  assert.is((await s.request('PUT', `/file/${t.files[0].id}${key}`, { json: { complete: true } })).status, 200);
  assert.is((await s.request('PUT', `/transfer/${t.id}${key}`, { json: { complete: true } })).status, 200);
  const added = (
    await s.request('POST', `/transfer/${t.id}/recipient`, { headers: alice, json: { recipient: 'n@example.org' } })
  ).json;
  await s.request('DELETE', `/recipient/${added.id}`, { headers: alice });
  await s.request('DELETE', `/transfer/${t.id}`, { headers: alice });
  const log = (await s.request('GET', `/transfer/${t.id}/auditlog`, { headers: alice })).json;
  assert.equal(
    log.map((e: any) => e.event),
    [
      'transfer_started',
      'upload_started',
      'file_uploaded',
      'upload_ended',
      'transfer_available',
      'transfer_sent',
      'recipient_added',
      'recipient_removed',
      'transfer_deleted',
    ],
  );
  for (const e of log) {
    assert.equal(Object.keys(e.date), ['raw', 'formatted']);
    assert.equal([e.author.type, e.author.id, e.author.email], ['User', 'alice', 'alice@example.org']);
    assert.match(e.author.ip, /127\.0\.0\.1|::1/);
  }
  assert.equal(log[2].target, { type: 'File', id: String(t.files[0].id), name: 'doc.txt', size: 3 });
  assert.equal(log[6].target, { type: 'Recipient', id: String(added.id), email: 'n@example.org' });
  assert.equal(log[8].target, { type: 'Transfer', id: String(t.id) });
  assert.is((await s.request('GET', `/transfer/${t.id}/auditlog`, { headers: asUser('bob') })).status, 404);
  const off = await startTestServer({ ...HEADER_SP, auditlog_enabled: false });
  try {
    const r = await off.request('POST', '/transfer', { headers: alice, json: body() });
    const empty = await off.request('GET', `/transfer/${r.json.id}/auditlog`, { headers: alice });
    assert.equal([empty.status, empty.json], [200, []]);
    assert.is(((await sqlOne(off, 'SELECT COUNT(*) AS n FROM audit_log')) as { n: number }).n, 0, 'nothing recorded');
  } finally {
    await off.close();
  }
});

test('frequent recipients: most recent first, a reused address moves up, filterOp[contains], per user', async () => {
  const dora = asUser('dora');
  await create({ from: 'dora@example.org', recipients: ['one@lab.example', 'two@lab.example'] }, dora);
  await create({ from: 'dora@example.org', recipients: ['three@other.example'] }, dora);
  await create({ from: 'dora@example.org', recipients: ['one@lab.example'] }, dora);
  const t = await create({ from: 'dora@example.org', recipients: ['four@lab.example'] }, dora);
  await s.request('POST', `/transfer/${t.id}/recipient`, { headers: dora, json: { recipient: 'five@lab.example' } });
  const all = (await s.request('GET', '/user/@me/frequent_recipients', { headers: dora })).json;
  assert.equal(all.slice(0, 3), ['five@lab.example', 'four@lab.example', 'one@lab.example']);
  assert.equal(all.slice(3).sort(), ['three@other.example', 'two@lab.example']);
  assert.equal(
    (await s.request('GET', '/user/@me/frequent_recipients?filterOp[contains]=other', { headers: dora })).json,
    ['three@other.example'],
  );
  assert.equal(
    (await s.request('GET', '/user/dora/frequent_recipients?filterOp[contains]=nothing', { headers: dora })).json,
    [],
  );
  assert.not.ok(
    (await s.request('GET', '/user/@me/frequent_recipients', { headers: asUser('erin') })).json.includes(
      'one@lab.example',
    ),
  );
  const stranger = await s.request('GET', '/user/dora/frequent_recipients', { headers: asUser('erin') });
  const nobody = await s.request('GET', '/user/nobody-at-all/frequent_recipients', { headers: asUser('erin') });
  assert.equal([stranger.status, stranger.json.message], [404, 'user_not_found']);
  assert.equal(
    [nobody.status, nobody.json.message],
    [404, 'user_not_found'],
    'another user and an unknown one answer alike',
  );
  assert.is((await s.request('GET', '/user/@me/frequent_recipients')).status, 401);
});

test('recipient endpoints: a known address comes back as is, the limit holds, tracking errors are shown', async () => {
  const t = await create({ recipients: ['a@example.org', 'b@example.org'] });
  const same = await s.request('POST', `/transfer/${t.id}/recipient`, {
    headers: alice,
    json: { recipient: 'A@example.org' },
  });
  assert.equal([same.status, same.json.id], [201, t.recipients[0].id]);
  assert.is(
    (await s.request('POST', `/transfer/${t.id}/recipient`, { headers: alice, json: { recipient: 'c@example.org' } }))
      .status,
    201,
  );
  const over = await s.request('POST', `/transfer/${t.id}/recipient`, {
    headers: alice,
    json: { recipient: 'd@example.org' },
  });
  assert.equal([over.status, over.json.message], [400, 'transfer_too_many_recipients']);
  const colour = await s.request('PUT', `/recipient/${t.recipients[0].id}`, {
    headers: alice,
    json: { remind: false, colour: 'red' },
  });
  assert.equal([colour.status, colour.json.message, colour.json.details], [400, 'rest_bad_parameter', ['colour']]);
  const plain = await s.request('PUT', `/recipient/${t.recipients[0].id}`, { headers: alice, json: {} });
  assert.equal([plain.status, plain.json.id], [200, t.recipients[0].id]);
  const missing = await s.request('POST', `/transfer/${t.id}/recipient`, { headers: alice, json: {} });
  assert.equal([missing.status, missing.json.message], [400, 'rest_missing_parameter']);
  await sql(
    s,
    `INSERT INTO tracking_errors (target_type, target_id, type, date, details) VALUES ('Recipient', ?, 'bounce', 1900000000, '550 no such user')`,
    t.recipients[1].id,
  );
  const r = (await s.request('GET', `/recipient/${t.recipients[1].id}`, { headers: alice })).json;
  assert.equal(r.errors, [
    { type: 'bounce', date: { raw: 1900000000, formatted: '17 Mar 2030' }, details: '550 no such user' },
  ]);
  // The spec's `formatted` follows the request's language, in the one unambiguous format of the pages and mails.
  for (const [lang, day] of [
    ['de', '17. März 2030'],
    ['fr', '17 mars 2030'],
  ]) {
    const localised = (
      await s.request('GET', `/recipient/${t.recipients[1].id}`, { headers: { ...alice, 'Accept-Language': lang } })
    ).json;
    assert.is(localised.errors[0].date.formatted, day, lang);
  }
  assert.equal(r.download_url, `${s.url}/?s=download&token=${r.token}`);
  const inTransfer = (await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json.recipients[1];
  assert.equal(inTransfer.errors, r.errors);
  assert.is((await s.request('GET', `/recipient/${t.recipients[1].id}`, { headers: asUser('bob') })).status, 404);
});

test('a guest adds recipients to its Transfer like its creator would, unless it may only send to its creator', async () => {
  const invite = async (options: string[]) => {
    const g = await s.request('POST', '/guest', {
      headers: alice,
      json: { recipient: 'gus@example.net', from: 'alice@example.org', options },
    });
    assert.is(g.status, 201, g.text);
    return g.json.token as string;
  };
  const upload = (vid: string) => s.request('POST', `/transfer?vid=${vid}`, { json: body({ from: undefined }) });
  const free = await invite([]);
  const t = (await upload(free)).json;
  const added = await s.request('POST', `/transfer/${t.id}/recipient?vid=${free}`, {
    json: { recipient: 'guestpick@example.org' },
  });
  assert.is(added.status, 201, added.text);
  const onlyMe = await invite(['can_only_send_to_me']);
  const t2 = (await upload(onlyMe)).json;
  assert.equal(
    t2.recipients.map((r: any) => r.email),
    ['alice@example.org'],
  );
  const refused = await s.request('POST', `/transfer/${t2.id}/recipient?vid=${onlyMe}`, {
    json: { recipient: 'extra@example.org' },
  });
  assert.equal([refused.status, refused.json.message], [403, 'rest_access_forbidden']);
  assert.is(
    (
      await s.request('POST', `/transfer/${t2.id}/recipient`, {
        headers: alice,
        json: { recipient: 'extra@example.org' },
      })
    ).status,
    201,
    'the creator still may',
  );
  const mine = (await s.request('GET', '/user/@me/frequent_recipients', { headers: alice })).json;
  assert.not.ok(
    mine.includes('guestpick@example.org'),
    "what a guest picks stays out of its creator's frequent recipients",
  );
  assert.ok(mine.includes('extra@example.org'), "the creator's own addition is remembered");
});

test.run();
