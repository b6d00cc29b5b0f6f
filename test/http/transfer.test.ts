import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, TestServer } from '../helpers/server';
import { patternBytes, sendChunks, sha256, shuffled } from '../helpers/upload-client';
import { createTransfer, transferBody } from '../helpers/factories';
import { fileWithDigest, storedBytes, storedUids } from '../helpers/stored-files';

const CHUNK = 64 * 1024;
let s: TestServer;
const alice = asUser('alice');
const bob = asUser('bob');
const boss = asUser('boss');

test.before(async () => {
  s = await startTestServer({
    ...HEADER_SP,
    admin: ['boss'],
    upload_chunk_size: CHUNK,
    max_transfer_files: 5,
    max_transfer_recipients: 3,
    max_transfer_size: 10_000_000,
  });
});
test.after(() => s.close());

const body = transferBody;
const create = (over: Record<string, unknown> = {}, headers = alice) => createTransfer(s, over, headers);
function expectError(r: { status: number; json: any }, status: number, message: string, details?: string[]) {
  assert.is(r.status, status, JSON.stringify(r.json));
  assert.is(r.json.message, message);
  assert.match(r.json.uid, /^[0-9a-f]+$/);
  if (details) assert.equal(r.json.details, details);
}

test('the whole procedure: 3 files, parallel out-of-order chunks, byte-identical on disk and by download', async () => {
  const datas = [patternBytes('one', 5 * CHUNK + 123), patternBytes('two', CHUNK), patternBytes('three', 7)];
  const t = await create({
    files: datas.map((d, i) => ({ name: `f${i}.bin`, size: d.length, mime_type: 'application/x-test', cid: `c${i}` })),
    recipients: ['r1@example.org', 'r2@example.org'],
    subject: 'Files',
    message: 'Hello',
  });
  assert.equal(
    t.files.map((f: any) => f.cid),
    ['c0', 'c1', 'c2'],
  );
  assert.is(t.status, 'started');
  assert.match(t.recipients[0].download_url, `${s.url}/?s=download&token=`);
  await Promise.all(
    t.files.map((f: any, i: number) =>
      sendChunks(s.request, f.id, datas[i], CHUNK, {
        parallel: 3,
        order: shuffled(Math.ceil(datas[i].length / CHUNK), i + 7),
        headers: alice,
      }).then((rs) => rs.forEach((r) => assert.is(r.status, 200, r.text))),
    ),
  );
  const after = (await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json;
  assert.is(after.status, 'uploading');
  for (const [i, f] of t.files.entries()) {
    const info = (await s.request('GET', `/file/${f.id}`, { headers: alice })).json;
    assert.is(info.received, datas[i].length);
    const done = await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } });
    assert.is(done.status, 200);
    assert.is(sha256(await storedBytes(s, t.id, f.uid)), sha256(datas[i]));
    assert.is(done.json, true);
    assert.is((await fileWithDigest(s, f.id, alice)).sha256, sha256(datas[i]));
  }
  const complete = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(complete.status, 200);
  assert.is(complete.json.status, 'available');
  const token = complete.json.recipients[0].token;
  for (const [i, f] of t.files.entries()) {
    const d = await fetch(`${s.url}/download?token=${token}&files_ids=${f.id}`);
    assert.is(d.status, 200);
    assert.is(d.headers.get('content-type'), 'application/x-test');
    assert.is(sha256(Buffer.from(await d.arrayBuffer())), sha256(datas[i]));
  }
});

test('POST /transfer answers the spec shape with Location, Dates and options', async () => {
  const r = await s.request('POST', '/transfer', {
    headers: alice,
    json: body({ options: ['email_download_complete'], subject: 'S' }),
  });
  assert.is(r.status, 201);
  assert.is(r.headers.get('location'), `${s.url}/transfer/${r.json.id}`);
  for (const k of [
    'id',
    'user_id',
    'user_email',
    'subject',
    'message',
    'created',
    'expires',
    'expiry_date_extension',
    'options',
    'files',
    'recipients',
  ])
    assert.ok(k in r.json, k);
  assert.equal(r.json.options, ['email_download_complete']);
  assert.is(r.json.expiry_date_extension, 2);
  assert.match(r.json.created.formatted, /^\d{1,2} [A-Z][a-z]{2,3} \d{4}$/);
  assert.is(r.json.files[0].sha1, null);
  const rec = r.json.recipients[0];
  for (const k of [
    'id',
    'transfer_id',
    'token',
    'email',
    'created',
    'last_activity',
    'options',
    'download_url',
    'errors',
  ])
    assert.ok(k in rec, k);
  assert.is(rec.options, null);
  assert.equal(rec.errors, []);
  assert.match(rec.token, /^[0-9a-f]{32}$/);
});

test('POST /transfer refuses each broken rule with its id and field', async () => {
  const cases: [Record<string, unknown>, number, string, string[]?][] = [
    [{ files: [] }, 400, 'transfer_no_files', ['files']],
    [{ files: undefined }, 400, 'transfer_no_files'],
    [{ files: 'x' }, 400, 'rest_bad_parameter', ['files']],
    [{ files: [{ name: '', size: 1 }] }, 400, 'rest_bad_parameter', ['files[0].name']],
    [{ files: [{ name: 'a', size: -1 }] }, 400, 'rest_bad_parameter', ['files[0].size']],
    [{ files: [{ name: 'a', size: 1.5 }] }, 400, 'rest_bad_parameter', ['files[0].size']],
    [{ files: Array.from({ length: 6 }, (_, i) => ({ name: `f${i}`, size: 1 })) }, 400, 'transfer_too_many_files'],
    [{ files: [{ name: 'a', size: 10_000_001 }] }, 400, 'transfer_maximum_size_exceeded'],
    [{ recipients: [] }, 400, 'transfer_no_recipients', ['recipients']],
    [{ recipients: ['a@example.org', 'not-an-email'] }, 400, 'bad_email', ['recipients[1]']],
    [{ recipients: ['a@x.org', 'b@x.org', 'c@x.org', 'd@x.org'] }, 400, 'transfer_too_many_recipients'],
    [{ expires: undefined }, 400, 'bad_expire', ['expires']],
    [{ expires: Math.floor(Date.now() / 1000) - 10 }, 400, 'bad_expire', ['expires']],
    [{ expires: Math.floor(Date.now() / 1000) + 30 * 86400 }, 400, 'bad_expire', ['expires']],
    [{ from: 'someone@else.org' }, 400, 'bad_email', ['from']],
    [{ from: undefined }, 400, 'bad_email', ['from']],
    [{ options: ['no_such_option'] }, 400, 'bad_option_name'],
    [{ subject: 'x'.repeat(300) }, 400, 'rest_bad_parameter', ['subject']],
  ];
  for (const [over, status, id, details] of cases) {
    const r = await s.request('POST', '/transfer', { headers: alice, json: body(over) });
    expectError(r, status, id, details);
  }
  expectError(await s.request('POST', '/transfer', { headers: alice, json: [1] }), 400, 'bad_request_body');
  expectError(await s.request('POST', '/transfer', { json: body() }), 401, 'rest_authentication_required');
});

test('file names are kept as given (any Unicode, folder paths too) and never become paths', async () => {
  const name = 'etc/pässwd 文件 <x>.txt';
  const t = await create({ files: [{ name, size: 3 }] });
  assert.is(t.files[0].name, name);
  await sendChunks(s.request, t.files[0].id, Buffer.from('abc'), CHUNK, { headers: alice });
  assert.equal(await storedUids(s, t.id), [t.files[0].uid]);
});

test('get_a_link: no recipients needed, a link recipient without address, no mail', async () => {
  const t = await create({ recipients: [], options: ['get_a_link'] });
  assert.is(t.recipients.length, 1);
  assert.is(t.recipients[0].email, '');
  assert.match(t.recipients[0].download_url, /token=[0-9a-f]{32}$/);
});

test('add_me_to_recipients adds the sender once', async () => {
  const t = await create({ options: ['add_me_to_recipients'] });
  assert.equal(
    t.recipients.map((r: any) => r.email),
    ['r@example.org', 'alice@example.org'],
  );
});

test('chunk rules: size limit 413, out of bounds, header mismatches, completion checks, no data after completion', async () => {
  const t = await create({ files: [{ name: 'a', size: CHUNK + 10 }] });
  const f = t.files[0];
  const put = (offset: number, data: Buffer, headers: Record<string, string> = {}) =>
    s.request('PUT', `/file/${f.id}/chunk/${offset}`, {
      body: data,
      headers: { ...alice, 'content-type': 'application/octet-stream', ...headers },
    });
  expectError(await put(0, Buffer.alloc(CHUNK + 1)), 413, 'storage_chunk_too_large');
  expectError(await put(CHUNK, Buffer.alloc(11)), 400, 'file_chunk_out_of_bounds');
  expectError(await put(0, Buffer.alloc(5), { 'X-Service-File-Size': '999' }), 400, 'rest_sanity_check_failed');
  expectError(await put(0, Buffer.alloc(5), { 'X-Service-Chunk-Offset': '5' }), 400, 'rest_sanity_check_failed');
  expectError(await put(0, Buffer.alloc(5), { 'X-Filesender-Chunk-Offset': '5' }), 400, 'rest_sanity_check_failed');
  expectError(
    await s.request('PUT', `/file/${f.id}/chunk/-1`, { headers: alice, body: Buffer.alloc(1) }),
    400,
    'rest_bad_parameter',
    ['offset'],
  );
  const data = patternBytes('rules', CHUNK + 10);
  assert.is((await put(0, data.subarray(0, CHUNK))).status, 200);
  assert.is((await put(0, data.subarray(0, CHUNK))).json.received, CHUNK); // the same chunk twice: idempotent
  expectError(
    await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } }),
    409,
    'file_incomplete',
  );
  expectError(
    await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } }),
    409,
    'transfer_files_incomplete',
  );
  assert.is((await put(CHUNK, data.subarray(CHUNK))).status, 200);
  assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  expectError(await put(0, data.subarray(0, 10)), 409, 'cannot_add_data_to_complete_transfer');
  assert.is((await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } })).status, 200);
  assert.ok((await storedBytes(s, t.id, f.uid)).equals(data));
});

test('extend_expiry_date uses the configured steps, then 409; remind and close', async () => {
  const t = await create();
  const e1 = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { extend_expiry_date: true } });
  assert.is(e1.status, 200);
  assert.is(e1.json.expires.raw, t.expires.raw + 7 * 86400);
  assert.is(e1.json.expiry_date_extension, 1);
  assert.is(
    (await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { extend_expiry_date: true } })).json
      .expiry_date_extension,
    0,
  );
  expectError(
    await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { extend_expiry_date: true } }),
    409,
    'transfer_expiry_extension_count_exceeded',
  );
  const closed = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { closed: true } });
  assert.is(closed.json.status, 'closed');
  expectError(
    await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { extend_expiry_date: true } }),
    409,
    'cannot_alter_closed_transfer',
  );
  assert.is((await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json.status, 'closed'); // still visible
});

test('recipients: add (201 + Location), remind, remove; the last one closes the Transfer', async () => {
  const t = await create();
  const add = await s.request('POST', `/transfer/${t.id}/recipient`, {
    headers: alice,
    json: { recipient: 'new@example.org' },
  });
  assert.is(add.status, 201);
  assert.is(add.headers.get('location'), `${s.url}/recipient/${add.json.id}`);
  expectError(
    await s.request('POST', `/transfer/${t.id}/recipient`, { headers: alice, json: { recipient: 'nope' } }),
    400,
    'bad_email',
    ['recipient'],
  );
  assert.is((await s.request('GET', `/recipient/${add.json.id}`, { headers: alice })).json.email, 'new@example.org');
  assert.is((await s.request('DELETE', `/recipient/${add.json.id}`, { headers: alice })).json, true);
  expectError(await s.request('GET', `/recipient/${add.json.id}`, { headers: alice }), 404, 'recipient_not_found');
  assert.is((await s.request('DELETE', `/recipient/${t.recipients[0].id}`, { headers: alice })).json, true);
  assert.is((await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json.status, 'closed');
});

test('deleting the last file closes the Transfer and removes its data', async () => {
  const t = await create({
    files: [
      { name: 'a', size: 3 },
      { name: 'b', size: 3 },
    ],
  });
  await sendChunks(s.request, t.files[0].id, Buffer.from('abc'), CHUNK, { headers: alice });
  assert.is((await s.request('DELETE', `/file/${t.files[0].id}`, { headers: alice })).json, true);
  assert.is((await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json.files.length, 1);
  await s.request('DELETE', `/file/${t.files[1].id}`, { headers: alice });
  assert.is((await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json.status, 'closed');
  assert.equal(await storedUids(s, t.id), []);
});

test('owners only: another user gets the same 404 as for an unknown id; an admin sees everything', async () => {
  const t = await create();
  const mine = await s.request('GET', `/transfer/${t.id}`, { headers: alice });
  assert.is(mine.status, 200);
  const other = await s.request('GET', `/transfer/${t.id}`, { headers: bob });
  const unknown = await s.request('GET', '/transfer/999999', { headers: bob });
  expectError(other, 404, 'transfer_not_found');
  expectError(unknown, 404, 'transfer_not_found');
  expectError(await s.request('GET', `/file/${t.files[0].id}`, { headers: bob }), 404, 'file_not_found');
  expectError(
    await s.request('PUT', `/file/${t.files[0].id}/chunk/0`, { headers: bob, body: Buffer.alloc(1) }),
    404,
    'file_not_found',
  );
  expectError(
    await s.request('DELETE', `/recipient/${t.recipients[0].id}`, { headers: bob }),
    404,
    'recipient_not_found',
  );
  assert.is((await s.request('GET', `/transfer/${t.id}`, { headers: boss })).status, 200);
  assert.ok((await s.request('GET', '/transfer/@all', { headers: boss })).json.some((x: any) => x.id === t.id));
  expectError(await s.request('GET', '/transfer/@all', { headers: alice }), 403, 'rest_admin_required');
  const bobs = (await s.request('GET', '/transfer', { headers: bob })).json;
  assert.not.ok(bobs.some((x: any) => x.id === t.id));
  assert.ok((await s.request('GET', '/transfer/@me', { headers: alice })).json.some((x: any) => x.id === t.id));
});

test('the chunk-upload key: accepted for chunks and completion, DELETE only before available, nothing else', async () => {
  const data = Buffer.from('keyed');
  const t = await create({ files: [{ name: 'k', size: data.length }] });
  const key = `?key=${t.files[0].uid}`;
  const rs = await sendChunks(s.request, t.files[0].id, data, CHUNK, { query: key });
  assert.is(rs[0].status, 200, rs[0].text);
  assert.is((await s.request('PUT', `/file/${t.files[0].id}${key}`, { json: { complete: true } })).status, 200);
  expectError(await s.request('GET', `/transfer/${t.id}${key}`), 401, 'rest_authentication_required');
  expectError(
    await s.request('PUT', `/transfer/${t.id}${key}`, { json: { closed: true } }),
    401,
    'rest_authentication_required',
  );
  expectError(
    await s.request('PUT', `/file/${t.files[0].id}?key=${'0'.repeat(32)}`, { json: { complete: true } }),
    401,
    'rest_authentication_required',
  );
  // With only a key, an unknown id answers like a wrong key: ids cannot be probed.
  expectError(
    await s.request('PUT', `/file/999999/chunk/0${key}`, { body: data }),
    401,
    'rest_authentication_required',
  );
  expectError(
    await s.request('PUT', `/transfer/999999${key}`, { json: { complete: true } }),
    401,
    'rest_authentication_required',
  );
  assert.is((await s.request('PUT', `/transfer/${t.id}${key}`, { json: { complete: true } })).status, 200);
  expectError(await s.request('DELETE', `/transfer/${t.id}${key}`), 401, 'rest_authentication_required');
  const t2 = await create();
  assert.is((await s.request('DELETE', `/transfer/${t2.id}?key=${t2.files[0].uid}`)).json, true);
  expectError(
    await s.request('DELETE', `/transfer/${t2.id}?key=${t.files[0].uid}`),
    401,
    'rest_authentication_required',
  );
});

test('audit log in the spec shape, and frequent recipients most recent first with filterOp[contains]', async () => {
  const t = await create({ recipients: ['zed@example.org'] });
  const log = (await s.request('GET', `/transfer/${t.id}/auditlog`, { headers: alice })).json;
  assert.is(log[0].event, 'transfer_started');
  assert.equal(Object.keys(log[0]).sort(), ['author', 'date', 'event', 'target']);
  assert.is(log[0].author.type, 'User');
  assert.is(log[0].author.id, 'alice');
  assert.is(log[0].target.type, 'Transfer');
  const fr = (await s.request('GET', '/user/@me/frequent_recipients', { headers: alice })).json;
  assert.is(fr[0], 'zed@example.org');
  const filtered = (await s.request('GET', '/user/@me/frequent_recipients?filterOp[contains]=ZED', { headers: alice }))
    .json;
  assert.equal(filtered, ['zed@example.org']);
  expectError(await s.request('GET', '/user/alice/frequent_recipients', { headers: bob }), 404, 'user_not_found'); // as for an unknown user
  assert.equal(
    (await s.request('GET', '/user/alice/frequent_recipients', { headers: alice })).json,
    fr,
    'the user itself',
  );
  assert.equal(
    (await s.request('GET', '/user/alice/frequent_recipients?filterOp[contains]=zed', { headers: boss })).json,
    ['zed@example.org'],
  );
  assert.equal((await s.request('GET', `/transfer/${t.id}/options`, { headers: alice })).json, []);
});

test.run();
