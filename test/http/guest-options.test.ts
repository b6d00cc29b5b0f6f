import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ParsedMail } from 'mailparser';
import { HEADER_SP, asUser } from '../helpers/server';
import { serverWithSink } from '../helpers/mail-server';
import { addressOf } from '../helpers/mail';
import { remoteSigned } from '../helpers/signing';
import { patternBytes, sendChunks, inAWeek } from '../helpers/upload-client';
import { delivered as deliveredMail } from '../helpers/factories';

// Each guest option's effect on what the guest does through its token, with the mail it causes (or not)
// delivered through a real SMTP sink; plus the denials a guest token meets.
const alice = asUser('alice');

const { s, sink } = serverWithSink(test, (sink) => ({ ...HEADER_SP, mail: { transport: sink.url } }));

let n = 0;
async function invite(options: string[] | Record<string, boolean> = [], transferOptions: string[] = []) {
  const r = await s.request('POST', '/guest', {
    headers: alice,
    json: { recipient: `g${++n}@example.net`, options, transfer_options: transferOptions },
  });
  assert.is(r.status, 201, r.text);
  return r.json;
}

/** Delivers all queued mail (the queue sends in order) and returns the sink's messages after the first `from`. */
const delivered = (from = 0): Promise<ParsedMail[]> => deliveredMail(s, sink, from);
const toAlice = (mails: ParsedMail[]) =>
  mails.filter((m) => addressOf(m.to) === 'alice@example.org').map((m) => m.subject);

async function createAsGuest(vid: string, size = 100_000) {
  return s.request('POST', `/transfer?vid=${vid}`, {
    json: { files: [{ name: 'data.bin', size }], recipients: ['r@example.org'], expires: inAWeek() },
  });
}

async function uploadAll(vid: string, t: { id: number; files: { id: number; size: number }[] }) {
  const f = t.files[0];
  for (const r of await sendChunks(s.request, f.id, patternBytes(`t${t.id}`, f.size), 20_000, { query: `?vid=${vid}` }))
    assert.is(r.status, 200, r.text);
  assert.is((await s.request('PUT', `/file/${f.id}?vid=${vid}`, { json: { complete: true } })).status, 200);
}

async function complete(vid: string, id: number) {
  const r = await s.request('PUT', `/transfer/${id}?vid=${vid}`, { json: { complete: true } });
  assert.is(r.status, 200, r.text);
  return r.json;
}

test('email_upload_page_access: the creator hears the page was opened, once per visit; not without the option', async () => {
  const watched = await invite(['email_upload_page_access']);
  const quiet = await invite();
  const seen = (await delivered()).length;
  for (const g of [watched, watched, quiet])
    assert.is((await s.request('GET', `/?s=upload&vid=${g.token}`)).status, 200);
  assert.equal(toAlice(await delivered(seen)), [`${watched.email} opened the upload page`]);
});

test('email_upload_started: one mail to the creator at the first chunk, none for later chunks; none without the option', async () => {
  const watched = await invite(['email_upload_started']);
  const quiet = await invite();
  const seen = (await delivered()).length;
  for (const g of [watched, quiet]) {
    const t = await createAsGuest(g.token);
    assert.is(t.status, 201, t.text);
    await uploadAll(g.token, t.json);
  }
  const mails = await delivered(seen);
  assert.equal(toAlice(mails), [`${watched.email} started uploading files`]);
  const started = mails.find((m) => addressOf(m.to) === 'alice@example.org')!;
  assert.match(started.text!, /transfer #\d+/);
});

test('transfer_count counts Transfers once they are available, not when created', async () => {
  const g = await invite();
  const count = async () => (await s.request('GET', `/guest/${g.id}`, { headers: alice })).json.transfer_count;
  const t1 = (await createAsGuest(g.token, 10)).json;
  await uploadAll(g.token, t1);
  assert.is(await count(), 0);
  await complete(g.token, t1.id);
  assert.is(await count(), 1);
  await complete(g.token, t1.id); // a retried completion is not a second Transfer
  assert.is(await count(), 1);
  const t2 = (await createAsGuest(g.token, 10)).json;
  await uploadAll(g.token, t2);
  await complete(g.token, t2.id);
  assert.is(await count(), 2);
  const list = await s.request('GET', '/guest', { headers: alice });
  assert.is(list.json.find((x: { id: number }) => x.id === g.id).transfer_count, 2);
});

test('valid_only_one_time: a second Transfer is refused while the first is under way; allowed again if the first is abandoned', async () => {
  const g = await invite(['valid_only_one_time']);
  const first = await createAsGuest(g.token, 10);
  assert.is(first.status, 201);
  const second = await createAsGuest(g.token, 10);
  assert.is(second.status, 403);
  assert.is(second.json.message, 'rest_access_forbidden');
  assert.equal(second.json.details, ['valid_only_one_time']);
  // The guest gives up its unfinished Transfer: the invitation has not been used yet.
  assert.is((await s.request('DELETE', `/transfer/${first.json.id}?vid=${g.token}`)).status, 200);
  const retry = await createAsGuest(g.token, 10);
  assert.is(retry.status, 201, retry.text);
  await uploadAll(g.token, retry.json);
  await complete(g.token, retry.json.id);
  const after = await s.request('GET', `/guest/${g.id}`, { headers: alice });
  assert.is(after.json.status, 'closed');
  assert.is(after.json.transfer_count, 1);
  assert.is((await createAsGuest(g.token, 10)).json.message, 'guest_token_invalid');
  // The closed guest's Transfer stays with the creator.
  assert.is((await s.request('GET', `/transfer/${retry.json.id}`, { headers: alice })).json.status, 'available');
});

test("a guest's request options and from are ignored: the guest's transfer_options and e-mail apply", async () => {
  const g = await invite([], ['email_download_complete', 'get_a_link']);
  const r = await s.request('POST', `/transfer?vid=${g.token}`, {
    json: {
      files: [{ name: 'a', size: 1 }],
      recipients: [],
      from: 'someone-else@example.org',
      options: ['email_me_copies'],
      expires: inAWeek(),
    },
  });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.user_email, g.email);
  assert.equal(r.json.options, ['email_download_complete', 'get_a_link']);
  assert.is(r.json.user_id, 'alice');
});

test('guest tokens: an unknown token is refused; a token never manages Guests; deletion stops an upload midway', async () => {
  const unknown = await s.request('GET', `/transfer?vid=${'0'.repeat(40)}`);
  assert.is(unknown.status, 401);
  assert.is(unknown.json.message, 'guest_token_invalid');
  const g = await invite();
  for (const [m, p] of [
    ['GET', '/guest'],
    ['POST', '/guest'],
    ['GET', `/guest/${g.id}`],
    ['DELETE', `/guest/${g.id}`],
    ['GET', '/guest/@all'],
  ] as const) {
    const r = await s.request(m, `${p}?vid=${g.token}`, {
      json: m === 'POST' ? { recipient: 'x@example.net' } : undefined,
    });
    // Not even its own Guest record: to a guest it is an unknown id, as for every other non-owner.
    assert.is(r.status, p.endsWith(`/${g.id}`) ? 404 : 403, `${m} ${p}: ${r.status}`);
  }
  const t = (await createAsGuest(g.token, 50_000)).json;
  await s.request('DELETE', `/guest/${g.id}`, { headers: alice });
  const chunk = await s.request('PUT', `/file/${t.files[0].id}/chunk/0?vid=${g.token}`, {
    body: Buffer.alloc(10),
    headers: { 'content-type': 'application/octet-stream' },
  });
  assert.is(chunk.status, 401);
  assert.is(chunk.json.message, 'guest_token_invalid');
  assert.is((await s.request('GET', `/transfer/${t.id}`, { headers: alice })).status, 200);
});

test('POST /guest from a remote application acting for a user: from is only format-checked', async () => {
  const secret = await s.app.services.accounts.addRemoteApp('portal', false);
  const host = new URL(s.url).host;
  const post = (from: string) => {
    const body = JSON.stringify({ recipient: 'rg@example.net', from });
    const path = remoteSigned({ method: 'POST', host, path: '/guest', app: 'portal', user: 'zoe', secret, body });
    return s.request('POST', path, { body, headers: { 'content-type': 'application/json' } });
  };
  const ok = await post('zoe.other@example.com');
  assert.is(ok.status, 201, ok.text);
  assert.is(ok.json.user_id, 'zoe');
  assert.is(ok.json.user_email, 'zoe.other@example.com');
  const bad = await post('not an address');
  assert.is(bad.status, 400);
  assert.is(bad.json.message, 'bad_email');
});

test.run();
