import vm from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TestServer } from '../helpers/server';
import { startTestSink, TestSink } from '../helpers/mail';
import { capturingLogger, login, movableClock, withSession } from '../helpers/session';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { until } from '../helpers/until';
import {
  FileSenderPy,
  pyEncryptChunk,
  pyFileIvAead,
  pyGenerateKey,
  pyScrapeConfig,
  pyTransferNames,
  PY_HEADERS,
} from '../helpers/filesender-py';

// FileSender's own command-line client, filesender.py 3.8, against ferry: each test makes the client's requests
// exactly as it makes them (test/helpers/filesender-py.ts says how it builds them) and checks what its user
// relies on: that it starts, uploads files and a folder to two recipients who get their mail, downloads a
// transfer byte for byte, creates a guest, and that its settings file from the profile page works as is.
const CHUNK = 64 * 1024;
const DAY = 86400;
const time = movableClock();
const logged = capturingLogger();
let s: TestServer;
let sink: TestSink;
let base: string;
let alice: FileSenderPy;
let mailsSoFar = 0;

test.before(async () => {
  sink = await startTestSink();
  s = await startTestServer(
    { upload_chunk_size: CHUNK, mail: { transport: sink.url, from: 'ferry@files.example' } },
    { clock: time.clock, log: logged.log },
  );
  base = `${s.url}/rest.php`;
  await s.app.services.accounts.addUser('alice@example.org', ['alice@example.org'], 'alice password');
  await s.app.services.accounts.addUser('bob', ['bob@example.org'], 'bob password');
  alice = await client('alice@example.org');
});
test.after(async () => {
  await s.close();
  await sink.close();
});

/** The client as its filesender.py.ini configures it; its sleep(5) between retries moves the shared clock. */
async function client(username: string, baseUrl = base): Promise<FileSenderPy> {
  const apikey = await s.app.services.users.remoteSecret(username);
  return new FileSenderPy({ baseUrl, username, apikey, clock: time.clock, sleep5: async () => time.advance(5) });
}

/** The mails sent since the last call, once the queue has delivered them. */
async function newMails(n: number) {
  await s.app.services.mailQueue.flush();
  const all = await sink.waitFor(mailsSoFar + n);
  const fresh = all.slice(mailsSoFar);
  mailsSoFar = all.length;
  return fresh;
}

interface LocalFile {
  /** Absolute path on the sender's disk. */
  path: string;
  data: Buffer;
}

/**
 * process() of an upload: POST /transfer with the names it derives, every chunk through a pool of
 * worker_count threads, each file completed once its chunks are in, then the transfer.
 */
async function upload(c: FileSenderPy, files: LocalFile[], recipients: string, workers: number) {
  const names = pyTransferNames(files.map((f) => f.path));
  const byName = new Map(files.map((f, i) => [`${names[i]}:${f.data.length}`, f]));
  const post = await c.postTransfer(
    names.map((name, i) => ({ name, size: files[i].data.length })),
    recipients,
    c.o.username,
    time.clock() + 10 * DAY,
  );
  const t = post.created;
  const jobs: { index: number; offset: number }[] = [];
  t.files.forEach((f: any, index: number) => {
    for (let offset = 0; offset < f.size; offset += CHUNK) jobs.push({ index, offset });
  });
  const left = t.files.map((f: any) => Math.ceil(f.size / CHUNK));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { index, offset } = jobs[next++];
      const f = t.files[index];
      const local = byName.get(`${f.name}:${f.size}`)!; // the client's self.files[name:size]: a crash if the name came back changed
      await c.putChunk(t, f, local.data.subarray(offset, offset + CHUNK), offset);
      if (--left[index] === 0) await c.fileComplete(t, f);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  await c.transferComplete(t);
  return { post, names };
}

const TREE: LocalFile[] = [
  { path: '/home/alice/send/notes.txt', data: patternBytes('notes', 1000) },
  { path: '/home/alice/send/photos/2026/a.jpg', data: patternBytes('a.jpg', 3 * CHUNK + 17) },
  { path: '/home/alice/send/photos/2026/b.jpg', data: patternBytes('b.jpg', CHUNK) },
  { path: '/home/alice/send/photos/c d é.png', data: patternBytes('c.png', 2 * CHUNK - 1) },
];
let uploaded: { id: number; links: string[] } | undefined;

test('start-up: {base_url}/info and {site}//filesender-config.js.php give every value the client reads', async () => {
  const info = await fetch(`${base}/info`, { headers: PY_HEADERS });
  assert.is(info.status, 200);
  assert.is((await info.json()).upload_chunk_size, CHUNK);
  // re.sub("rest.php$", "", base_url) + "/filesender-config.js.php": the path starts with a doubled slash.
  const url = `${base.replace(/rest\.php$/, '')}/filesender-config.js.php`;
  assert.match(url, /\d\/\/filesender-config\.js\.php$/);
  const r = await fetch(url, { headers: PY_HEADERS });
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type')!, /^text\/javascript/);
  const got = pyScrapeConfig(await r.text());
  assert.equal(got, {
    worker_count: 4,
    worker_timeout_s: 180,
    worker_retries: 20,
    terasender_enabled: 'true',
    max_transfer_files: 30,
    max_transfer_days_valid: 20,
    password_mixed_case_required: 'true',
    password_numbers_required: 'true',
    password_special_required: 'true',
    iv_len: 16,
    password_hash_iterations: 600000,
    crypt_type: 'AES-GCM',
    hash_name: 'SHA-256',
  });
});

test('the configuration script is JavaScript built from the config, and tells only what GET /info may', async () => {
  const other = await startTestServer({
    max_transfer_files: 7,
    max_transfer_days_valid: 9,
    default_transfer_days_valid: 3,
    max_concurrent_chunk_uploads: 2,
    encryption_password_must_have_numbers: false,
    encryption_password_hash_iterations: 250000,
    encryption_enabled: true,
    encryption_mandatory: true,
    encryption_min_password_length: 16,
    disclose: ['upload_chunk_size', 'max_transfer_files', 'max_transfer_days_valid'],
  });
  try {
    const text = (await other.request('GET', '//filesender-config.js.php')).text;
    const scraped = pyScrapeConfig(text);
    assert.equal([scraped.max_transfer_files, scraped.max_transfer_days_valid, scraped.worker_count], [7, 9, 2]);
    assert.equal([scraped.password_numbers_required, scraped.password_hash_iterations], ['false', 250000]);
    // Run as a page would: the same values on window.filesender.config.
    const window: any = {};
    vm.runInNewContext(text, { window });
    const cfg = window.filesender.config;
    assert.is(cfg.site_url, `${other.url}/`);
    assert.is(cfg.upload_chunk_size, 5242880);
    assert.is(cfg.max_transfer_files, 7);
    assert.is(cfg.terasender_enabled, true);
    assert.is(cfg.crypto_crypt_name, 'AES-GCM');
    assert.is(cfg.encryption_password_must_have_numbers, false);
    // FileSender's page reads these to offer (or require) encryption and check a typed password's length.
    assert.equal(
      [cfg.encryption_enabled, cfg.encryption_mandatory, cfg.encryption_min_password_length],
      [true, true, 16],
    );
    assert.equal([cfg.encryption_key_version_new_files, cfg.encryption_random_password_version_new_files], [3, 2]);
    // Not disclosed, so not here either; secrets and paths never are.
    for (const hidden of [
      'default_transfer_days_valid',
      'max_transfer_size',
      'data_dir',
      'admin',
      'mail',
      'auth',
      'listen',
      other.dir,
    ]) {
      assert.not.ok(text.includes(hidden), `${hidden} is in the script`);
    }
    // Also without a window (a worker, node): it defines its own.
    const ctx: any = { globalThis: undefined };
    ctx.globalThis = ctx;
    vm.runInNewContext(text, ctx);
    assert.is(ctx.filesender.config.max_transfer_days_valid, 9);
  } finally {
    await other.close();
  }
});

test('upload: four files, three in a folder tree, to two recipients as filesender.py sends them; both are mailed', async () => {
  const { post, names } = await upload(alice, TREE, 'rcpt1@example.net, rcpt2@example.net', 4);
  assert.equal(names, ['notes.txt', 'photos/2026/a.jpg', 'photos/2026/b.jpg', 'photos/c d é.png']);
  // 201 with Location, and the fields the client indexes.
  assert.is(post.location, `${s.url}/transfer/${post.created.id}`);
  const t = post.created;
  assert.match(t.roundtriptoken, /^[0-9a-f]{32}$/);
  for (const f of t.files) assert.is(f.puid, f.uid);
  assert.equal(
    t.files.map((f: any) => [f.name, f.size]),
    names.map((n, i) => [n, TREE[i].data.length]),
  );
  assert.equal(t.options, [], '{get_a_link: 0} sets nothing');
  // Every request carried the client's headers and went to /rest.php; every answer was a success.
  assert.ok(alice.sent.every((r) => r.url.startsWith(`${base}/`) && r.headers.Accept === 'application/json'));
  // The SHA-256s are known at completion on the filesystem, a moment later on S3 (read back in the background).
  let stored: any;
  await until(
    'the SHA-256 of every file',
    async () => {
      stored = await alice.call({ method: 'get', path: `/transfer/${t.id}` });
      return stored.files.every((f: any) => f.sha256 !== null);
    },
    15_000,
  );
  assert.is(stored.status, 'available');
  assert.ok(stored.files.every((f: any) => f.complete));
  assert.equal(
    stored.files.map((f: any) => f.sha256),
    TREE.map((f) => sha256(f.data)),
  );
  assert.is(stored.roundtriptoken, '', 'only the answer that created the transfer carries it');
  const mails = await newMails(2);
  assert.equal(mails.map((m) => (m.to as any).value[0].address).sort(), ['rcpt1@example.net', 'rcpt2@example.net']);
  const links = mails.map((m) => /(http:\/\/\S+\?s=download&token=[0-9a-f]+)/.exec(m.text ?? '')![1]);
  uploaded = { id: t.id, links };
});

test('download with -d <link>: fileidsextended, then download.php per file: byte-identical, saved in the tree', async () => {
  assert.ok(uploaded, 'the upload test ran');
  for (const link of uploaded!.links) {
    // Any user of the server may fetch with a recipient's link: the token is what opens it.
    const bobClient = await client('bob');
    const token = FileSenderPy.tokenOfLink(link, base);
    const list = (await bobClient.filesInTransfer(token)) as any[];
    assert.equal(
      list.map((f) => f.name),
      ['notes.txt', 'photos/2026/a.jpg', 'photos/2026/b.jpg', 'photos/c d é.png'],
    );
    assert.ok(list.every((f) => f.encrypted === false && f.transferid === uploaded!.id));
    const saved = new Map<string, Buffer>();
    for (const f of list) {
      const got = await bobClient.downloadFile(token, f.id);
      assert.is(got.status, 200);
      assert.is(got.body.length, f.size);
      // os.path.join(token or -o dir, *name.split("/")[:-1]) / the last part
      saved.set(f.name.split('/').join('|'), got.body);
    }
    TREE.forEach((local, i) =>
      assert.is(sha256(saved.get(list[i].name.split('/').join('|'))!), sha256(local.data), list[i].name),
    );
  }
  // Encrypted files are fetched in Range requests: they are answered with the range.
  const token = FileSenderPy.tokenOfLink(uploaded!.links[0], base);
  const list = (await alice.filesInTransfer(token)) as any[];
  const part = await alice.downloadFile(token, list[1].id, `bytes=${CHUNK}-${2 * CHUNK + 31}`);
  assert.is(part.status, 206);
  assert.is(sha256(part.body), sha256(TREE[1].data.subarray(CHUNK, 2 * CHUNK + 32)));
  // A link of another server is refused by the client itself before any request.
  assert.throws(
    () => FileSenderPy.tokenOfLink(`https://elsewhere.example/?s=download&token=${token}`, base),
    /non configured/,
  );
  // An unknown token: a clear 404 in the error shape (the client would retry it, then stop).
  const unknown = await alice.send(
    alice.build({ method: 'get', path: '/transfer/fileidsextended', data: { token: 'f'.repeat(32) } }),
  );
  assert.equal([unknown.status, unknown.json.message], [404, 'transfer_not_found']);
  // FileSender's shorter listing: the ids only.
  assert.equal(
    await alice.call({ method: 'get', path: '/transfer/fileids', data: { token } }),
    list.map((f) => f.id),
  );
});

test('guest with -g: POST /guest as the client sends it → 201 with Location, and the guest gets the invitation', async () => {
  const r = await alice.postGuest('guest1@example.net', time.clock() + 10 * DAY);
  assert.match(r.location, new RegExp(`^${s.url}/guest/\\d+$`));
  assert.is(r.created.email, 'guest1@example.net');
  assert.is(r.created.user_email, 'alice@example.org');
  assert.not.ok(r.created.options.includes('get_a_link'));
  const [mail] = await newMails(1);
  assert.is((mail.to as any).value[0].address, 'guest1@example.net');
  assert.match(mail.text ?? '', /\?s=upload&vid=[0-9a-f]+/);
});

test("a user name that is not an address (uploads need -f): -g sends it as from, and the invitation is from the user's address", async () => {
  const bob = await client('bob');
  const r = await bob.postGuest('guest2@example.net', time.clock() + 10 * DAY);
  assert.is(r.created.user_email, 'bob@example.org');
  await newMails(1);
  // Uploads send the -f address; another user's id is no address of bob's.
  const wrong = await bob.send(
    bob.build({
      method: 'post',
      path: '/guest',
      content: { from: 'alice@example.org@', recipient: 'g@example.net', aup_checked: 1, options: { get_a_link: 0 } },
    }),
  );
  assert.equal([wrong.status, wrong.json.message, wrong.json.details], [400, 'bad_email', ['from']]);
});

test("options and fields: object or array form, false/0 not set, an unknown name set to true refused; the answer keeps the spec's array", async () => {
  const files = [{ name: 'o.txt', size: 1 }];
  const post = (options: unknown) =>
    alice.send(
      alice.build({
        method: 'post',
        path: '/transfer',
        content: {
          from: 'alice@example.org',
          files,
          recipients: ['r@example.net'],
          expires: time.clock() + DAY,
          aup_checked: 1,
          options,
        },
      }),
    );
  const obj = await post({ get_a_link: 0, email_me_copies: 1, nonsense: false, email_upload_complete: true });
  assert.is(obj.status, 201, obj.text);
  assert.equal(obj.json.options, ['email_me_copies', 'email_upload_complete']);
  const arr = await post(['email_download_complete']);
  assert.equal(arr.json.options, ['email_download_complete']);
  const unknown = await post({ nonsense: 1 });
  assert.equal(
    [unknown.status, unknown.json.message, unknown.json.details],
    [400, 'bad_option_name', ['options.nonsense']],
  );
  const badValue = await post({ get_a_link: 'no' });
  assert.equal(
    [badValue.status, badValue.json.message, badValue.json.details],
    [400, 'rest_bad_parameter', ['options.get_a_link']],
  );
  const aup = await alice.send(
    alice.build({
      method: 'post',
      path: '/transfer',
      content: { files, recipients: ['r@example.net'], expires: time.clock() + DAY, aup_checked: 'yes' },
    }),
  );
  assert.equal([aup.status, aup.json.details], [400, ['aup_checked']]);
  // Guests too, and FileSender's page form {"guest": {…}, "transfer": {…}}.
  const g = await alice.send(
    alice.build({
      method: 'post',
      path: '/guest',
      content: {
        recipient: 'g3@example.net',
        options: { guest: { valid_only_one_time: true, email_guest_created: false }, transfer: { get_a_link: 1 } },
      },
    }),
  );
  assert.is(g.status, 201, g.text);
  assert.equal([g.json.options, g.json.transfer_options], [['valid_only_one_time'], ['get_a_link']]);
  const gBad = await alice.send(
    alice.build({
      method: 'post',
      path: '/guest',
      content: { recipient: 'g4@example.net', options: { frobnicate: true } },
    }),
  );
  assert.equal([gBad.status, gBad.json.message], [400, 'bad_option_name']);
});

test("chunk key and round-trip token: another transfer's token is refused (403), a missing one is not required", async () => {
  const a = await alice.postTransfer(
    [{ name: 'a.bin', size: 10 }],
    'r@example.net',
    'alice@example.org',
    time.clock() + DAY,
  );
  const b = await alice.postTransfer(
    [{ name: 'b.bin', size: 10 }],
    'r@example.net',
    'alice@example.org',
    time.clock() + DAY,
  );
  const fa = a.created.files[0];
  const bytes = patternBytes('rtt', 10);
  const wrong = await alice.send(
    alice.build({
      method: 'put',
      path: `/file/${fa.id}/chunk/0`,
      data: { key: fa.puid, roundtriptoken: b.created.roundtriptoken },
      raw: bytes,
    }),
  );
  assert.equal([wrong.status, wrong.json.message], [403, 'rest_roundtrip_token_invalid']);
  // Only the chunk key, no signature (what a browser does when its session ended): the token is checked too.
  const keyOnly = await s.request(
    'PUT',
    `/rest.php/file/${fa.id}/chunk/0?key=${fa.puid}&roundtriptoken=${b.created.roundtriptoken}`,
    { body: bytes, headers: { 'content-type': 'application/octet-stream' } },
  );
  assert.equal([keyOnly.status, keyOnly.json.message], [403, 'rest_roundtrip_token_invalid']);
  assert.is((await s.request('PUT', `/rest.php/file/${fa.id}/chunk/0?key=${fa.puid}`, { body: bytes })).status, 200);
  assert.is((await alice.fileComplete(a.created, fa)) as any, true);
  const done = await s.request('PUT', `/rest.php/file/${fa.id}?key=${fa.puid}&roundtriptoken=nope`, {
    json: { complete: true },
  });
  assert.is(done.status, 403);
  // The client's clean-up after a failure: DELETE with the chunk key of its first file.
  assert.is(await alice.deleteTransfer(b.created), true);
  assert.is(
    (await alice.send(alice.build({ method: 'get', path: `/transfer/${b.created.id}` }))).json.status,
    'closed',
  );
});

test('a refused call is retried by the client 5 s later with a new timestamp, and goes through once the state allows it', async () => {
  const t = (
    await alice.postTransfer(
      [{ name: 'late.bin', size: 2 * CHUNK }],
      'r@example.net',
      'alice@example.org',
      time.clock() + DAY,
    )
  ).created;
  const f = t.files[0];
  const data = patternBytes('late', 2 * CHUNK);
  await alice.putChunk(t, f, data.subarray(0, CHUNK), 0);
  // The completion comes before the last chunk: 409; while the client sleeps, the chunk arrives.
  const c = new FileSenderPy({
    ...alice.o,
    sleep5: async () => {
      time.advance(5);
      await alice.putChunk(t, f, data.subarray(CHUNK), CHUNK);
    },
  });
  const began = Date.now();
  assert.is(await c.fileComplete(t, f), true);
  assert.is(c.sent.length, 2);
  const [first, second] = c.sent.map((r) => new URL(r.url).searchParams);
  // Five seconds of the movable clock, plus the real seconds the chunk sent meanwhile took (the clock is real time
  // moved on): a slow store or a loaded machine may cross a second's boundary.
  const apart = Number(second.get('timestamp')) - Number(first.get('timestamp'));
  assert.ok(apart >= 5 && apart <= 5 + Math.ceil((Date.now() - began) / 1000), `${apart} s apart`);
  assert.is.not(first.get('signature'), second.get('signature'));
  // A client whose secret is wrong is told 401, which it retries, then gives up.
  const wrong = new FileSenderPy({ ...alice.o, apikey: 'x'.repeat(64), retries: 1 });
  try {
    await wrong.transferComplete(t);
    assert.unreachable('a wrong secret was accepted');
  } catch (e) {
    assert.match(String(e), /Http error 401 .*auth_remote_signature_check_failed/);
  }
  assert.is(wrong.sent.length, 3);
});

test('a base_url ending in "rest.php/" (doubled slashes in every path) signs and routes the same', async () => {
  const c = await client('alice@example.org', `${base}/`);
  const { post } = await upload(c, [{ path: '/tmp/x/one.txt', data: patternBytes('one', 100) }], 'r@example.net', 1);
  assert.ok(c.sent.every((r) => r.url.includes('/rest.php//')));
  assert.is(post.created.files[0].name, 'one.txt');
  assert.is(((await c.call({ method: 'get', path: `/transfer/${post.created.id}` })) as any).status, 'available');
});

test("filesender.py.ini from the profile page: the signed-in user's file drives the client as it is", async () => {
  const sess = await login(s, 'bob', 'bob password');
  const r = await s.request('GET', '/user/@me/filesender-python-client-configuration-file', {
    headers: withSession(sess),
  });
  assert.is(r.status, 200, r.text);
  assert.match(r.headers.get('content-type')!, /^text\/plain/);
  assert.match(r.headers.get('content-disposition')!, /attachment; filename="filesender.py.ini"/);
  assert.is(r.headers.get('cache-control'), 'no-store');
  const ini = parseIni(r.text);
  assert.equal(ini.system, { base_url: `${s.url}/rest.php`, default_transfer_days_valid: '10' });
  assert.is(ini.user.username, 'bob');
  assert.is(ini.user.apikey, await s.app.services.users.remoteSecret('bob'));
  assert.match(r.text, /give yours with -f \(e\.g\. -f bob@example\.org\)/);
  const c = new FileSenderPy({
    baseUrl: ini.system.base_url,
    username: ini.user.username,
    apikey: ini.user.apikey,
    clock: time.clock,
  });
  const me = (await c.call({ method: 'get', path: '/user' })) as any;
  assert.is(me.id, 'bob');
  // Nobody else gets a user's file: without a session 401; a remote application acting as the user 403.
  assert.is((await s.request('GET', '/user/@me/filesender-python-client-configuration-file')).status, 401);
  const appSecret = await s.app.services.accounts.addRemoteApp('portal', false);
  const { signedPath } = await import('../helpers/signing');
  const asApp = signedPath({
    method: 'GET',
    host: new URL(s.url).host,
    path: '/user/@me/filesender-python-client-configuration-file',
    args: { remote_application: 'portal', remote_user: 'bob', timestamp: time.clock() },
    secret: appSecret,
  });
  const refused = await s.request('GET', asApp);
  assert.equal([refused.status, refused.json.message], [403, 'rest_access_forbidden']);
});

test('-e <password>: the client encrypts each chunk, ferry stores only ciphertext; -d <link> -e <password> decrypts byte-identical', async () => {
  const PASSWORD = 'Lab-Results-2026';
  // What the client reads for -e before anything else: the rules its password must pass and the iterations.
  const scraped = pyScrapeConfig((await s.request('GET', '//filesender-config.js.php')).text);
  assert.equal(
    [scraped.iv_len, scraped.crypt_type, scraped.hash_name, scraped.password_hash_iterations],
    [16, 'AES-GCM', 'SHA-256', 600000],
  );
  const files: LocalFile[] = [
    { path: '/home/alice/lab/results.csv', data: patternBytes('results', 2 * CHUNK + 123) },
    { path: '/home/alice/lab/notes.txt', data: patternBytes('notes', 999) },
  ];
  const names = pyTransferNames(files.map((f) => f.path));
  const crypt = files.map((f) => pyFileIvAead(f.data.length, CHUNK));
  const post = await alice.postTransfer(
    names.map((name, i) => ({ name, size: files[i].data.length, iv: crypt[i].iv, aead: crypt[i].aead })),
    'lab@example.net',
    'alice@example.org',
    time.clock() + 10 * DAY,
    null,
    null,
    { iterations: scraped.password_hash_iterations! },
  );
  const t = post.created;
  assert.equal([t.encryption, typeof t.salt, t.salt.length], [true, 'string', 32]);
  const key = pyGenerateKey(PASSWORD, t.salt, scraped.password_hash_iterations!);
  for (const [index, f] of (t.files as any[]).entries()) {
    for (let offset = 0; offset < f.size; offset += CHUNK) {
      // send_file_chunk(): chunk id ceil(offset / chunk size), PUT at the plaintext offset.
      const chunk = pyEncryptChunk(
        files[index].data.subarray(offset, offset + CHUNK),
        Math.ceil(offset / CHUNK),
        crypt[index].ivBytes,
        crypt[index].aeadString,
        key,
      );
      await alice.putChunk(t, f, chunk, offset);
    }
    await alice.fileComplete(t, f);
  }
  await alice.transferComplete(t);
  const stored = (await alice.call({ method: 'get', path: `/transfer/${t.id}` })) as any;
  assert.is(stored.status, 'available');
  assert.equal(
    stored.files.map((f: any) => [f.size, f.received, f.complete]),
    files.map((f) => [f.data.length, f.data.length, true]),
  );
  // The server holds ciphertext: what it computed the SHA-256 of is not the plaintext.
  stored.files.forEach((f: any, i: number) => assert.is.not(f.sha256, sha256(files[i].data)));
  // The recipient's mail (earlier tests may have left mails of their own in the sink).
  await s.app.services.mailQueue.flush();
  const all = await sink.waitFor(mailsSoFar + 1);
  mailsSoFar = all.length;
  const mail = all.find((m) => (m.to as any).value[0].address === 'lab@example.net')!;
  assert.ok(mail, 'the recipient was mailed');
  assert.not.ok((mail.text ?? '').includes(PASSWORD), 'the password never appears in a mail');
  const token = FileSenderPy.tokenOfLink(/(http:\/\/\S+\?s=download&token=[0-9a-f]+)/.exec(mail.text ?? '')![1], base);

  const bobClient = await client('bob');
  const list = (await bobClient.filesInTransfer(token)) as any[];
  assert.equal(
    list.map((f) => [
      f.name,
      f.size,
      f.encrypted,
      f['key-version'],
      f['key-salt'],
      f['password-hash-iterations'],
      f.fileiv,
      f.fileaead,
    ]),
    names.map((n, i) => [n, files[i].data.length, true, 3, t.salt, 600000, crypt[i].iv, crypt[i].aead]),
  );
  // download_transfer(): the key from the first file's key-salt and password-hash-iterations.
  const downloadKey = pyGenerateKey(PASSWORD, list[0]['key-salt'], list[0]['password-hash-iterations']);
  for (const [i, f] of list.entries()) {
    assert.is(
      sha256(await bobClient.downloadEncryptedFile(token, f, downloadKey, CHUNK)),
      sha256(files[i].data),
      f.name,
    );
  }
  // A wrong password fails on the first chunk's tag, every time the client tries again.
  const wrongKey = pyGenerateKey('Lab-Results-2027', list[0]['key-salt'], list[0]['password-hash-iterations']);
  const refused = await bobClient.downloadEncryptedFile(token, list[0], wrongKey, CHUNK).then(
    () => null,
    (e: Error) => e,
  );
  assert.match(String(refused), /authenticate/);
});

test("the log shows the client's requests but none of its secrets: API key, signatures, chunk keys, round-trip tokens", async () => {
  const text = logged.lines.join('\n');
  assert.match(
    text,
    /PUT \/rest\.php\/file\/\d+\/chunk\/0\?key=\*\*\*&remote_user=alice%40example\.org&roundtriptoken=\*\*\*&signature=\*\*\*&timestamp=\d+ 200/,
  );
  const secrets = [await s.app.services.users.remoteSecret('alice@example.org')];
  for (const r of alice.sent) {
    const q = new URL(r.url).searchParams;
    for (const k of ['signature', 'key', 'roundtriptoken', 'token']) if (q.get(k)) secrets.push(q.get(k)!);
  }
  assert.ok(secrets.length > 20);
  for (const secret of secrets) assert.not.ok(text.includes(secret), `${secret} is in the log`);
});

/** configparser's reading of the file, enough for this one: sections, "key = value", "#" comments. */
function parseIni(text: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let section = '';
  for (const line of text.split('\n')) {
    if (/^\s*(#|;|$)/.test(line)) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) out[(section = head[1])] = {};
    else {
      const i = line.indexOf('=');
      out[section][line.slice(0, i).trim()] = line
        .slice(i + 1)
        .trim()
        .replace(/%%/g, '%');
    }
  }
  return out;
}

test.run();
