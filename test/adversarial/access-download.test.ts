import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asUser, startTestServer, TestResponse } from '../helpers/server';
import { login } from '../helpers/session';
import { patternBytes, sendChunks } from '../helpers/upload-client';
import { assertErrorShape, dbHash } from './fixture';
import { ATTACKERS, AccessWorld, CHUNK, FILE_SIZE, startAccessWorld, Who } from './access-world';

// Access, the parts outside the REST resources: GET /download and the pages that show private data
// (the download page, the mail sink, the admin page), for every principal of access.test.ts, and the shape of
// every token the API hands out.
let w: AccessWorld;
let sinkDir: string;
/** alice's available Transfer: its download token, a File's id and uid, and what only its recipients may see. */
let avail: { token: string; fileId: number; fileUid: string; name: string; subject: string };
let guestToken: string;
let removedToken: string;
const counts = { download: 0, sameAsUnknown: 0, pages: 0, allowed: 0, tokens: 0 };
const HTML = { accept: 'text/html' };

test.before(async () => {
  w = await startAccessWorld({ mail: { transport: null, sink: { host: '127.0.0.1', port: 0 } } });
  sinkDir = w.s.app.services.settings.get().mail.sink!.dir;
  fs.mkdirSync(sinkDir, { recursive: true });
  // A stored mail carries tokens: only admins may read the sink.
  fs.writeFileSync(
    path.join(sinkDir, '1700000000000-0123456789ab.eml'),
    'From: a@example.org\r\nTo: g@example.org\r\nSubject: sink secret subject\r\n\r\nvid=secret\r\n',
  );
  const name = 'only-for-recipients.txt';
  const subject = 'available secret subject';
  const t = await w.s.request('POST', '/transfer', {
    headers: asUser('alice'),
    json: {
      files: [{ name, size: FILE_SIZE }],
      recipients: ['r@example.org', 'removed@example.org'],
      from: 'alice@example.org',
      expires: w.time.clock() + 7 * 86400,
      subject,
    },
  });
  assert.is(t.status, 201, t.text);
  const file = t.json.files[0];
  for (const c of await sendChunks(w.s.request, file.id, patternBytes('d', FILE_SIZE), CHUNK, {
    headers: asUser('alice'),
  }))
    assert.is(c.status, 200);
  assert.is(
    (await w.s.request('PUT', `/file/${file.id}`, { headers: asUser('alice'), json: { complete: true } })).status,
    200,
  );
  const done = await w.s.request('PUT', `/transfer/${t.json.id}`, {
    headers: asUser('alice'),
    json: { complete: true },
  });
  assert.is(done.status, 200, done.text);
  avail = { token: done.json.recipients[0].token, fileId: file.id, fileUid: file.uid, name, subject };
  const removed = done.json.recipients[1];
  assert.is((await w.s.request('DELETE', `/recipient/${removed.id}`, { headers: asUser('alice') })).status, 200);
  removedToken = removed.token;
  guestToken = (await w.s.request('GET', `/guest/${w.alice.guest}`, { headers: asUser('alice') })).json.token;
});
test.after(async () => {
  console.log(
    `  access download/pages: ${JSON.stringify(counts)} = ${Object.values(counts).reduce((a, b) => a + b)} cases`,
  );
  await w.s.close();
});

const withoutUid = (r: TestResponse) => (r.json?.uid ? r.text.replace(r.json.uid, '<uid>') : r.text);
const leaks = (r: TestResponse) =>
  [avail.name, avail.subject, 'sink secret subject', 'secret subject'].filter((s) => r.text.includes(s));

/** What each principal may present as a download token, none of which is one. */
const wrongTokens = () => ({
  none: '',
  unknown: 'ab'.repeat(16),
  'a File uid of the Transfer': avail.fileUid,
  'a guest token': guestToken,
  'the token of a Transfer not yet available': w.cred.recipientToken,
  'the token of a removed recipient': removedToken,
});

test('/download: no principal opens a Transfer without its token; every wrong token answers like an unknown one', async () => {
  await w.settle();
  const before = await dbHash(w.s, ['used_signatures']);
  for (const who of ATTACKERS) {
    const unknown = await w.as(who, 'GET', `/download?token=${'cd'.repeat(16)}`);
    for (const [kind, token] of Object.entries(wrongTokens())) {
      const r = await w.as(who, 'GET', token ? `/download?token=${token}` : '/download');
      const label = `${who} /download with ${kind}`;
      // A removed recipient's own link says it was withdrawn (its holder knew the Transfer), and nothing more.
      const withdrawn = kind === 'the token of a removed recipient';
      const want = who === 'expiredGuest' ? [410, 'guest_expired'] : [404, 'transfer_not_found'];
      if (withdrawn && r.json?.message === 'recipient_withdrawn')
        assert.equal([r.status, r.json?.message], [410, 'recipient_withdrawn'], `${label}: ${r.text}`);
      else assert.equal([r.status, r.json?.message], want, `${label}: ${r.text}`);
      assertErrorShape(r, label);
      counts.download++;
      // recipientToken also sends its token as `token`, which this one replaces only when given.
      if ((who !== 'recipientToken' || token) && !withdrawn) {
        assert.is(withoutUid(r), withoutUid(unknown), `${label} vs an unknown token`);
        counts.sameAsUnknown++;
      }
    }
  }
  assert.is(await dbHash(w.s, ['used_signatures']), before, 'refused downloads changed the database');
});

test("/download: the token opens its own Files only; another Transfer's File id answers like an unknown one", async () => {
  const ask = (ids: string) => w.as('anonymous', 'GET', `/download?token=${avail.token}&files_ids=${ids}`);
  const unknown = await ask('987654321');
  for (const ids of [String(w.alice.file), String(w.alice.emptyFile), `${avail.fileId},${w.alice.file}`]) {
    const r = await ask(ids);
    assert.equal([r.status, r.json?.message, r.json?.details], [404, 'file_not_found', ['files_ids']], ids);
    assert.is(withoutUid(r), withoutUid(unknown), ids);
    counts.sameAsUnknown++;
  }
  const ok = await ask(String(avail.fileId));
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.headers.get('content-length'), String(FILE_SIZE));
  counts.allowed++;
});

test('the download page: no principal sees a Transfer without its token; its recipient does', async () => {
  for (const who of ATTACKERS) {
    for (const [kind, token] of Object.entries(wrongTokens())) {
      const r = await w.as(who, 'GET', `/?s=download${token ? `&token=${token}` : ''}`, { headers: HTML });
      const label = `${who} download page with ${kind}`;
      const statuses =
        who === 'expiredGuest' ? [410] : kind === 'the token of a removed recipient' ? [404, 410] : [404];
      assert.ok(statuses.includes(r.status), `${label}: ${r.status} ${r.text.slice(0, 200)}`);
      assert.match(r.headers.get('content-type') ?? '', /text\/html/, label);
      assert.equal(leaks(r), [], label);
      counts.pages++;
    }
  }
  const r = await w.as('anonymous', 'GET', `/?s=download&token=${avail.token}`, { headers: HTML });
  assert.is(r.status, 200);
  assert.ok(r.text.includes(avail.name) && r.text.includes(avail.subject), 'the recipient sees the Transfer');
  counts.allowed++;
});

test('the mail sink and admin pages: admins only; nobody else sees a stored message', async () => {
  const want: Record<string, number> = {
    anonymous: 200,
    recipientToken: 200,
    foreignChunkKey: 200,
    ownChunkKey: 200,
    expiredGuest: 410,
  };
  for (const who of ATTACKERS) {
    const sink = await w.as(who, 'GET', '/?s=mail-sink', { headers: HTML });
    // Anonymous callers get the sign-in page, signed-in ones a refusal.
    assert.is(sink.status, want[who] ?? 403, `${who} mail sink: ${sink.text.slice(0, 200)}`);
    assert.equal(leaks(sink), [], `${who} mail sink`);
    const one = await w.as(who, 'GET', '/?s=mail-sink&id=1700000000000-0123456789ab.eml', { headers: HTML });
    assert.equal(leaks(one), [], `${who} one stored message`);
    counts.pages += 2;
    if (who === 'otherUser' || who === 'remoteApp') {
      const admin = await w.as(who, 'GET', '/?s=admin', { headers: HTML });
      assert.is(admin.status, who === 'otherUser' ? 403 : 200, `${who} admin page`);
      counts.pages++;
    }
  }
  for (const who of ['admin', 'adminApp'] as Who[]) {
    const sink = await w.as(who, 'GET', '/?s=mail-sink&id=1700000000000-0123456789ab.eml', { headers: HTML });
    assert.ok(sink.status === 200 && sink.text.includes('sink secret subject'), `${who} reads the sink`);
    counts.allowed++;
  }
  assert.is((await w.as('admin', 'GET', '/?s=admin', { headers: HTML })).status, 200);
  counts.allowed++;
});

/** Bits of a random string: its length times the bits of the smallest alphabet it fits. */
function bits(token: string): number {
  if (/^[0-9a-f]+$/.test(token)) return token.length * 4;
  if (/^[A-Za-z0-9_-]+$/.test(token)) return token.length * 6;
  return 0; // any other alphabet is not one of ours: fail
}

test('every token and secret the API hands out has at least 128 random bits, and no two are alike', async () => {
  const many = await w.s.request('POST', '/transfer', {
    headers: asUser('alice'),
    json: {
      files: Array.from({ length: 10 }, (_, i) => ({ name: `f${i}`, size: 1 })),
      recipients: Array.from({ length: 20 }, (_, i) => `t${i}@example.org`),
      from: 'alice@example.org',
      expires: w.time.clock() + 86400,
    },
  });
  assert.is(many.status, 201, many.text);
  const guests = await Promise.all(
    [1, 2, 3].map((i) =>
      w.s.request('POST', '/guest', {
        headers: asUser('alice'),
        json: { recipient: `tg${i}@example.org`, from: 'alice@example.org' },
      }),
    ),
  );
  const remoteConfig = (await w.s.request('GET', '/user', { headers: asUser('alice') })).json.remote_config as string;
  const local = await startTestServer();
  await local.app.services.accounts.addUser('carol', ['carol@example.org'], 'a long password');
  const sessions = [await login(local, 'carol', 'a long password'), await login(local, 'carol', 'a long password')];
  await local.close();
  const tokens: Record<string, string[]> = {
    'recipient token': many.json.recipients.map((r: { token: string }) => r.token),
    'File uid (chunk key)': many.json.files.map((f: { uid: string }) => f.uid),
    'guest token': guests.map((g) => g.json.token),
    'remote user secret': [remoteConfig.split('|')[2]],
    'remote application secret': [w.cred.portal, w.cred.ops],
    'session cookie': sessions.map((x) => x.cookie.split('=')[1]),
    'security token': sessions.map((x) => x.csrf),
  };
  const seen = new Set<string>();
  for (const [kind, list] of Object.entries(tokens)) {
    for (const t of list) {
      assert.ok(bits(t) >= 128, `${kind} ${t}: ${bits(t)} bits`);
      // Sequential or time-based tokens would share a long prefix with their neighbours.
      for (const other of seen) assert.not.ok(t.slice(0, 8) === other.slice(0, 8), `${kind} ${t} looks like ${other}`);
      seen.add(t);
      counts.tokens++;
    }
  }
});

test.run();
