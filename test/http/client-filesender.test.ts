import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseFileSenderIni, parseLoginText } from '../../src/client/credentials';
import { getFiles } from '../../src/client/download';
import { ClientError } from '../../src/client/errors';
import { inviteGuest } from '../../src/client/guest';
import { sendFiles, type SendOptions } from '../../src/client/send';
import { checkLogin } from '../../src/client/servers/open';
import { choosePassword } from '../../src/client/encryption';
import type { ReporterIO } from '../../src/client/progress';
import { EMULATED_CHUNK, startFileSenderEmulator, type Emulator } from '../helpers/filesender-emulator';
import { tempDir } from '../helpers/temp-dir';

// ferry's client against a FileSender 3.8 server, emulated from FileSender's source (test/helpers/filesender-emulator.ts
// says what each answer keeps): every request the client makes there — info, the settings script, the account,
// transfer creation, chunks, file and transfer completion, a guest, the download page, download.php plain and
// encrypted — and what a user relies on: the files arrive byte for byte, a killed send carries on, a transfer
// the server dropped starts over, and each answer the client cannot use is one line naming the request.
const SECRET = 'f'.repeat(64);
let fs8: Emulator;
let dir: string;
const quiet = { out: () => {}, err: () => {} };
const lines: string[] = [];
const noting: ReporterIO = { out: (l) => void lines.push(l), err: (l) => void lines.push(l) };

test.before(async () => {
  fs8 = await startFileSenderEmulator({ users: { alice: SECRET } });
  dir = tempDir('ferry-fs-client-');
});
test.after(async () => {
  await fs8.close();
});

function file(name: string, size: number, seed = 7): string {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * seed + (i >> 8)) & 0xff;
  fs.writeFileSync(p, b);
  return p;
}

function send(paths: string[], extra: Partial<SendOptions> = {}, url = fs8.rest, io: ReporterIO = quiet) {
  return sendFiles(
    { url, user: 'alice', secret: SECRET },
    {
      paths,
      recipients: ['bob@example.org'],
      link: false,
      parallel: 3,
      json: true,
      retries: 0,
      env: { XDG_CONFIG_HOME: path.join(dir, 'cfg') },
      from: 'alice@example.org',
      ...extra,
    },
    io,
  );
}

function since(n: number): string[] {
  return fs8.log.slice(n);
}

test('login: filesender.py.ini (file or text) gives url, user and secret; an ini without apikey is refused by name', () => {
  const ini = `[system]\nbase_url = ${fs8.rest}\ndefault_transfer_days_valid = 10\n\n[user]\nusername = alice\napikey = ${SECRET}\n`;
  assert.equal(parseFileSenderIni(ini), { url: fs8.rest, user: 'alice', secret: SECRET });
  assert.equal(parseLoginText(ini), { url: fs8.rest, user: 'alice', secret: SECRET });
  assert.throws(
    () => parseLoginText('[system]\nbase_url = http://x/rest.php\n[user]\nusername = a\n'),
    /\[user\] apikey/,
  );
});

test('login check: FileSender is found at the site URL or at /rest.php, and the account read with GET /user/@me (GET /user is for admins)', async () => {
  const n = fs8.log.length;
  assert.is(await checkLogin({ url: fs8.url, user: 'alice', secret: SECRET }, {}), 'filesender');
  assert.equal(since(n), [
    'GET /info',
    'GET /rest.php/info',
    'GET /filesender-config.js.php',
    'GET /rest.php/user/@me',
  ]);
  const bad = await checkLogin(
    { url: fs8.rest, user: 'alice', secret: 'e'.repeat(64) },
    { retry: { retries: 3, baseDelayMs: 1000, maxDelayMs: 1000 } },
  ).catch((e) => e);
  assert.instance(bad, ClientError);
  // FileSender answers a bad signature with 500: named, so it is not retried.
  assert.match(
    bad.message,
    /signing in to .* \(GET \/rest\.php\/user\/@me\): the server answered 500 auth_remote_signature_check_failed/,
  );
});

test('a server that signs the host without its port (stock fastcgi): the client signs the host alone and goes on', async () => {
  const stock = await startFileSenderEmulator({ users: { alice: SECRET }, serverName: 'host' });
  try {
    assert.is(
      await checkLogin(
        { url: stock.rest, user: 'alice', secret: SECRET },
        { retry: { retries: 0, baseDelayMs: 1000, maxDelayMs: 1000 } },
      ),
      'filesender',
    );
    assert.equal(
      stock.log.filter((l) => l === 'GET /rest.php/user/@me').length,
      2,
      'refused once with the port, then accepted',
    );
  } finally {
    await stock.close();
  }
});

test('send: a file of 3½ chunks, to a recipient: POST /transfer, every chunk, file and transfer completed; the bytes arrive', async () => {
  const p = file('a.bin', EMULATED_CHUNK * 3 + 500);
  const n = fs8.log.length;
  const r = await send([p]);
  assert.is(r.server, 'FileSender');
  assert.equal(r.recipients, ['bob@example.org']);
  const t = fs8.transfers.get(r.transfer_id)!;
  assert.is(t.status, 'available');
  assert.is(t.userEmail, 'alice@example.org');
  assert.ok(t.files[0].data.equals(fs.readFileSync(p)));
  const calls = since(n);
  assert.is(calls.filter((c) => c.startsWith('PUT /rest.php/file/') && c.includes('/chunk/')).length, 4);
  assert.ok(calls.includes(`PUT /rest.php/file/${t.files[0].id}`));
  assert.is(calls[calls.length - 1], `PUT /rest.php/transfer/${t.id}`);
  assert.not.ok(calls.includes('GET /rest.php/user'), 'never the admins-only GET /user');
});

test('a folder keeps its tree, --link gives the link; get of that link (no login) reads the download page and download.php', async () => {
  file('photos/2026/x.jpg', 70_000, 3);
  file('photos/readme.txt', 6, 5);
  const r = await send([path.join(dir, 'photos')], { link: true, recipients: [] });
  assert.match(r.link!, /\/\?s=download&token=[0-9a-f-]{36}$/);
  const t = fs8.transfers.get(r.transfer_id)!;
  assert.equal(t.files.map((f) => f.name).sort(), ['photos/2026/x.jpg', 'photos/readme.txt']);
  const out = path.join(dir, 'out-link');
  const n = fs8.log.length;
  const g = await getFiles({ link: r.link!, outDir: out, json: true, retries: 0 }, quiet);
  assert.is(g.files.length, 2);
  assert.ok(
    fs.readFileSync(path.join(out, 'photos/2026/x.jpg')).equals(fs.readFileSync(path.join(dir, 'photos/2026/x.jpg'))),
  );
  assert.ok(
    fs.readFileSync(path.join(out, 'photos/readme.txt')).equals(fs.readFileSync(path.join(dir, 'photos/readme.txt'))),
  );
  assert.ok(since(n).includes('GET /'), 'the download page');
  assert.is(
    since(n).filter((c) => c === 'GET /download.php').length,
    2,
    'one request per file: the client brings its own transaction_id',
  );
});

test('get resumes a partial plain file with an explicit range end (download.php announces one byte too many for an open one)', async () => {
  const p = file('resume-get.bin', 100_000, 11);
  const r = await send([p], { link: true, recipients: [] });
  const out = path.join(dir, 'out-resume');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'resume-get.bin.part'), fs.readFileSync(p).subarray(0, 40_000));
  await getFiles({ link: r.link!, outDir: out, json: true, retries: 0 }, quiet);
  assert.ok(fs.readFileSync(path.join(out, 'resume-get.bin')).equals(fs.readFileSync(p)));
});

test("--encrypt: chunks sealed with the transfer's salt and the script's iterations; get decrypts byte for byte, signed (fileidsextended) or not", async () => {
  const p = file('secret.bin', EMULATED_CHUNK * 2 + 10, 13);
  const password = 'Correct-Horse-9-battery';
  const r = await send([p], { link: true, recipients: [], encrypt: choosePassword(password) });
  const t = fs8.transfers.get(r.transfer_id)!;
  assert.ok(t.encrypted);
  assert.is(t.iterations, 1000);
  assert.is(t.files[0].data.length, EMULATED_CHUNK * 2 + 10 + 3 * 32);
  assert.not.ok(t.files[0].data.includes(fs.readFileSync(p).subarray(0, 64)), 'no plaintext stored');
  const out = path.join(dir, 'out-enc');
  await getFiles({ link: r.link!, outDir: out, json: true, retries: 0, password: async () => password }, quiet);
  assert.ok(fs.readFileSync(path.join(out, 'secret.bin')).equals(fs.readFileSync(p)));
  const n = fs8.log.length;
  const out2 = path.join(dir, 'out-enc-signed');
  await getFiles(
    {
      link: r.link!,
      outDir: out2,
      json: true,
      retries: 0,
      password: async () => password,
      credentials: () => ({ url: fs8.rest, user: 'alice', secret: SECRET }),
    },
    quiet,
  );
  assert.ok(since(n).includes('GET /rest.php/transfer/fileidsextended'));
  assert.ok(fs.readFileSync(path.join(out2, 'secret.bin')).equals(fs.readFileSync(p)));
  const wrong = await getFiles(
    {
      link: r.link!,
      outDir: path.join(dir, 'out-wrong'),
      json: true,
      retries: 0,
      password: async () => 'Wrong-Horse-9-battery',
    },
    quiet,
  ).catch((e) => e);
  assert.match(wrong.message, /wrong password/);
});

test('resume: a run that stopped halfway resends only the missing chunks; a transfer the server dropped starts over, said', async () => {
  const p = file('half.bin', EMULATED_CHUNK * 8, 19);
  // Three chunks are acknowledged, the fourth fails: the run ends there, as a killed one would.
  fs8.failChunkAfter(3);
  const first = await send([p], { parallel: 1 }).catch((e) => e);
  assert.instance(first, ClientError);
  assert.match(
    first.message,
    /sending half\.bin at byte \d+ \(PUT \/rest\.php\/file\/\d+\/chunk\/\d+\): the server answered 500 storage_filesystem_cannot_write/,
  );
  const n = fs8.log.length;
  lines.length = 0;
  const r = await send([p], { parallel: 1, json: false }, fs8.rest, noting);
  assert.ok(r.resumed);
  assert.ok(
    lines.some((l) => /resuming transfer \d+: /.test(l)),
    lines.join('\n'),
  );
  const resent = since(n).filter((c) => c.includes('/chunk/')).length;
  assert.is(resent, 5, `resent ${resent} of 8 chunks`);
  assert.ok(fs8.transfers.get(r.transfer_id)!.files[0].data.equals(fs.readFileSync(p)));

  // The server drops the unfinished transfer (purged, or deleted on its pages): the rerun says so and starts anew.
  const q = file('dropped.bin', EMULATED_CHUNK * 4, 23);
  fs8.failChunkAfter(2);
  await send([q], { parallel: 1 }).catch(() => {});
  const open = [...fs8.transfers.values()].find((t) => t.files[0]?.name === 'dropped.bin' && t.status !== 'available')!;
  fs8.transfers.delete(open.id);
  lines.length = 0;
  const r2 = await send([q], { parallel: 1, json: false }, fs8.rest, noting);
  assert.ok(
    lines.some((l) =>
      /cannot be carried on: transfer \d+ the server no longer has it \(transfer_not_found\); starting over/.test(l),
    ),
    lines.join('\n'),
  );
  assert.ok(fs8.transfers.get(r2.transfer_id)!.files[0].data.equals(fs.readFileSync(q)));
});

test('a transfer the server closed meanwhile refuses chunks: the rerun says so, removes it and starts over', async () => {
  const p = file('closed.bin', EMULATED_CHUNK * 4, 29);
  fs8.failChunkAfter(1);
  await send([p], { parallel: 1 }).catch(() => {});
  const open = [...fs8.transfers.values()].find((t) => t.files[0]?.name === 'closed.bin')!;
  open.status = 'closed';
  const n = fs8.log.length;
  lines.length = 0;
  const r = await send([p], { parallel: 1, json: false }, fs8.rest, noting);
  assert.ok(
    lines.some((l) =>
      /the server no longer takes data for transfer \d+ \(cannot_add_data_to_complete_transfer\): starting over with a new transfer/.test(
        l,
      ),
    ),
    lines.join('\n'),
  );
  assert.ok(since(n).includes(`DELETE /rest.php/transfer/${open.id}`));
  assert.not.ok(fs8.transfers.has(open.id));
  assert.ok(fs8.transfers.get(r.transfer_id)!.files[0].data.equals(fs.readFileSync(p)));
});

test('--guest: POST /guest with the sender address FileSender needs from a remote user', async () => {
  const g = await inviteGuest(
    { url: fs8.rest, user: 'alice', secret: SECRET },
    { email: 'carol@example.org', from: 'alice@example.org', days: 5 },
    quiet,
  );
  assert.is(g.email, 'carol@example.org');
  assert.match(g.upload_url!, /\?s=upload&vid=/);
  assert.is(fs8.guests[fs8.guests.length - 1].user_email, 'alice@example.org');
  const none = await inviteGuest(
    { url: fs8.rest, user: 'alice', secret: SECRET },
    { email: 'carol@example.org' },
    quiet,
  ).catch((e) => e);
  assert.match(none.message, /FileSender does not tell a remote client your address.*--from/);
});

test('limits from the settings script (files, days, encryption required) are checked before anything is created', async () => {
  const small = await startFileSenderEmulator({ users: { alice: SECRET }, maxFiles: 1, mandatory: true });
  try {
    const e = await send(
      [file('l1.txt', 10), file('l2.txt', 10)],
      { encrypt: choosePassword('Correct-Horse-9-battery') },
      small.rest,
    ).catch((x) => x);
    assert.match(e.message, /at most 1 files in a transfer; these are 2/);
    assert.not.ok(small.log.includes('POST /rest.php/transfer'));
    const d = await send(
      [file('l3.txt', 10)],
      { days: 30, encrypt: choosePassword('Correct-Horse-9-battery') },
      small.rest,
    ).catch((x) => x);
    assert.match(d.message, /--days: this server keeps transfers at most 20 days/);
    const plain = await send([file('l4.txt', 10)], {}, small.rest).catch((x) => x);
    assert.match(plain.message, /this server takes encrypted transfers only: send with --encrypt/);
  } finally {
    await small.close();
  }
});

test('answers the client cannot use are one line naming the request: a site that is not FileSender, a refusal with its name', async () => {
  const notRest = await send([file('x.txt', 3)], {}, `${fs8.url}/nothing-here`).catch((e) => e);
  assert.instance(notRest, ClientError);
  assert.match(
    notRest.message,
    /GET \/nothing-here\/info answered 200 \(text\/html.*GET \/nothing-here\/rest\.php\/info answered 200 \(text\/html/,
  );
  const noFrom = await send([file('y.txt', 3)], { from: 'not an address' }).catch((e) => e);
  assert.match(
    noFrom.message,
    /creating the transfer \(POST \/rest\.php\/transfer\): the server answered 500 bad_email/,
  );
  const badLink = await getFiles(
    {
      link: `${fs8.url}/?s=download&token=00000000-0000-0000-0000-000000000000`,
      outDir: path.join(dir, 'o'),
      json: true,
      retries: 0,
    },
    quiet,
  ).catch((e) => e);
  assert.match(badLink.message, /reading the download page: GET \/\?s=download&token=… lists no files/);
});

test.run();
