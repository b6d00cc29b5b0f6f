import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { HEADER_SP, asUser } from '../helpers/server';
import { serverWithSink } from '../helpers/mail-server';
import { addressOf } from '../helpers/mail';
import { patternBytes, sendChunks, sha256, inAWeek } from '../helpers/upload-client';

const alice = asUser('alice');
const bob = asUser('bob');

const { s, sink } = serverWithSink(test, (sink) => ({ ...HEADER_SP, admin: ['boss'], mail: { transport: sink.url } }));

async function invite(options: string[] = [], transferOptions: string[] = [], as = alice) {
  const r = await s.request('POST', '/guest', {
    headers: as,
    json: { recipient: 'guest@example.org', from: as['X-Remote-Email'], options, transfer_options: transferOptions },
  });
  assert.is(r.status, 201, r.text);
  return r.json;
}

async function mailsTo(addr: string) {
  await s.app.services.mailQueue.flush();
  return (await sink.messages()).filter((m) => addressOf(m.to) === addr);
}

/** The guest's whole upload, through its token only: create, chunks, complete. */
async function guestUpload(vid: string, data: Buffer, recipients: string[] = ['someone@example.org']) {
  const q = `?vid=${vid}`;
  const t = await s.request('POST', `/transfer${q}`, {
    json: {
      files: [{ name: 'from-guest.bin', size: data.length }],
      recipients,
      from: 'ignored@example.org',
      expires: inAWeek(),
      options: ['get_a_link'],
    },
  });
  if (t.status !== 201) return { status: t.status, json: t.json };
  for (const r of await sendChunks(s.request, t.json.files[0].id, data, 64 * 1024, { query: q, parallel: 2 }))
    assert.is(r.status, 200, r.text);
  assert.is((await s.request('PUT', `/file/${t.json.files[0].id}${q}`, { json: { complete: true } })).status, 200);
  const done = await s.request('PUT', `/transfer/${t.json.id}${q}`, { json: { complete: true } });
  assert.is(done.status, 200, done.text);
  return { status: 201, json: done.json };
}

test('the whole journey: invitation mail, guest upload under its terms, the creator owns it, recipients get the files', async () => {
  const g = await invite(['email_upload_started'], ['email_download_complete']);
  const invitation = (await mailsTo('guest@example.org'))[0];
  assert.match(invitation.text!, `?s=upload&vid=${g.token}`);
  const page = await s.request('GET', `/?s=upload&vid=${g.token}`);
  assert.is(page.status, 200);
  const data = patternBytes('guest', 200_000);
  const up = await guestUpload(g.token, data, ['carol@example.org']);
  assert.is(up.status, 201);
  const t = up.json;
  assert.is(t.user_id, 'alice'); // the creator owns it
  assert.is(t.user_email, 'guest@example.org'); // from is the guest's address, whatever was sent
  assert.equal(t.options, ['email_download_complete']); // the guest's transfer_options, not the request's
  assert.is(t.status, 'available');
  assert.ok(
    (await s.request('GET', `/transfer/${t.id}`, { headers: alice })).status === 200,
    'the creator sees and manages it',
  );
  assert.is((await s.request('GET', `/guest/${g.id}`, { headers: alice })).json.transfer_count, 1);
  const carol = await mailsTo('carol@example.org');
  assert.is(carol.length, 1);
  const token = /token=([0-9a-f]{32})/.exec(carol[0].text!)![1];
  const d = await fetch(
    `${s.url}/download?token=${token}`.replace('download?', 'download?files_ids=' + t.files[0].id + '&'),
  );
  assert.is(sha256(Buffer.from(await d.arrayBuffer())), sha256(data));
  const started = (await mailsTo('alice@example.org')).find((m) => /started uploading/.test(m.subject!));
  assert.ok(started, 'email_upload_started told the creator');
});

test('a guest sees only its own Transfers: not its creator’s others, not other guests’', async () => {
  const own = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'a', size: 1 }], recipients: ['x@example.org'] }),
  });
  const g1 = await invite();
  const g2 = await invite();
  const mine = await guestUpload(g1.token, Buffer.from('one'));
  const theirs = await guestUpload(g2.token, Buffer.from('two'));
  const list = (await s.request('GET', `/transfer?vid=${g1.token}`)).json.map((t: any) => t.id);
  assert.equal(list, [mine.json.id]);
  assert.is((await s.request('GET', `/transfer/${own.json.id}?vid=${g1.token}`)).status, 404);
  assert.is((await s.request('GET', `/transfer/${theirs.json.id}?vid=${g1.token}`)).status, 404);
  assert.is((await s.request('GET', `/transfer/${mine.json.id}?vid=${g1.token}`)).status, 200);
  assert.is((await s.request('GET', `/guest?vid=${g1.token}`)).status, 403); // guests cannot manage guests
  const bobGuest = await invite([], [], bob);
  assert.is((await s.request('GET', `/transfer/${mine.json.id}?vid=${bobGuest.token}`)).status, 404);
});

test('under a guest token, from and options are ignored, even when they would be invalid', async () => {
  const g = await invite([], ['email_upload_complete']);
  const r = await s.request('POST', `/transfer?vid=${g.token}`, {
    json: {
      files: [{ name: 'x', size: 1 }],
      recipients: ['a@example.org'],
      from: 'not an address',
      options: ['bogus'],
      expires: inAWeek(),
    },
  });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.user_email, 'guest@example.org');
  assert.equal(r.json.options, ['email_upload_complete']);
});

test('can_only_send_to_me: the creator replaces whatever recipients the guest gives', async () => {
  const g = await invite(['can_only_send_to_me']);
  const up = await guestUpload(g.token, Buffer.from('x'), ['elsewhere@example.org']);
  const emails = up.json.recipients.map((r: any) => r.email).filter(Boolean);
  assert.equal(emails, ['alice@example.org']);
});

test('valid_only_one_time: the guest is closed once its first Transfer is available; a second is refused', async () => {
  const g = await invite(['valid_only_one_time']);
  assert.is((await guestUpload(g.token, Buffer.from('first'))).status, 201);
  const second = await s.request('POST', `/transfer?vid=${g.token}`, {
    json: { files: [{ name: 'b', size: 1 }], recipients: ['a@example.org'], expires: inAWeek() },
  });
  assert.is(second.status, 401);
  assert.is(second.json.message, 'guest_token_invalid');
  assert.is((await s.request('GET', `/guest/${g.id}`, { headers: alice })).json.status, 'closed');
});

test('denials: a deleted guest and an expired guest cannot upload', async () => {
  const closed = await invite();
  await s.request('DELETE', `/guest/${closed.id}`, { headers: alice });
  const r = await s.request('POST', `/transfer?vid=${closed.token}`, {
    json: { files: [{ name: 'b', size: 1 }], recipients: ['a@example.org'], expires: inAWeek() },
  });
  assert.is(r.status, 401);
  assert.is(r.json.message, 'guest_token_invalid');
  const expired = await invite();
  await s.app.db.query('UPDATE guests SET expires = ? WHERE id = ?', [Math.floor(Date.now() / 1000) - 1, expired.id]);
  const e = await s.request('POST', `/transfer?vid=${expired.token}`, {
    json: { files: [{ name: 'b', size: 1 }], recipients: ['a@example.org'], expires: inAWeek() },
  });
  assert.is(e.status, 410);
  assert.is(e.json.message, 'guest_expired');
});

test('admin views: every guest and every guest Transfer', async () => {
  const g = await invite([], [], bob);
  const up = await guestUpload(g.token, Buffer.from('adm'));
  const boss = asUser('boss');
  assert.ok((await s.request('GET', '/guest/@all', { headers: boss })).json.some((x: any) => x.id === g.id));
  assert.ok((await s.request('GET', '/transfer/@all', { headers: boss })).json.some((x: any) => x.id === up.json.id));
  assert.is((await s.request('GET', '/guest/@all', { headers: alice })).status, 403);
});

test.run();
