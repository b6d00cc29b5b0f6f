import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, TestServer, sql } from '../helpers/server';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { FileSenderPy } from '../helpers/filesender-py';
import { availableTransfer, transferBody } from '../helpers/factories';

// A password on the link (docs/sharing.md, Link password): stored as a scrypt hash, asked for before anything
// is listed, checked on the server with tries throttled in the database; after it, downloads, the ZIP and
// Range requests work as before. FileSender's client gets a clear error instead of a file.

let s: TestServer;
const alice = asUser('alice');
const PASSWORD = 'correct horse battery';
const HEADER = 'X-Ferry-Link-Password';

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP });
  await s.app.services.accounts.addUser('bob', ['bob@example.org'], 'bob password');
});
test.after(async () => {
  await s.close();
});

/** An available Transfer of these files from alice to r@example.org, its links asking for `password` when given. */
const available = (files: { name: string; data: Buffer }[], password?: string) =>
  availableTransfer(s, files, { headers: alice, over: password === undefined ? {} : { password } });

const get = (p: string, headers: Record<string, string> = {}) =>
  fetch(`${s.url}${p}`, { headers, redirect: 'manual', signal: AbortSignal.timeout(30_000) });

test('kept as a scrypt hash, shown to the owner as a yes; a bad value is refused naming the field', async () => {
  const { t } = await available([{ name: 'a.txt', data: Buffer.from('hello') }], PASSWORD);
  assert.is(t.password, true);
  const [row] = await sql(s, 'SELECT password_hash FROM transfer_sharing WHERE transfer_id = ?', t.id);
  assert.match(row.password_hash, /^scrypt\$16384\$8\$1\$/);
  assert.not.ok(row.password_hash.includes(PASSWORD));
  const shown = await s.request('GET', `/transfer/${t.id}`, { headers: alice });
  assert.not.ok(shown.text.includes('scrypt'), 'the hash never leaves the server');
  const bad = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'x', size: 1 }], password: 12345 }),
  });
  assert.equal([bad.status, bad.json.message, bad.json.details], [400, 'rest_bad_parameter', ['password']]);
});

test('API: nothing is listed or sent without it; with it the file, Range and the ZIP work as before', async () => {
  const a = patternBytes('pw-a', 70_000);
  const b = patternBytes('pw-b', 9_000);
  const { t, token } = await available(
    [
      { name: 'a.bin', data: a },
      { name: 'b.bin', data: b },
    ],
    PASSWORD,
  );
  const fa = t.files[0].id;
  for (const p of [
    `/download/files?token=${token}`,
    `/download?token=${token}&files_ids=${fa}`,
    `/download?token=${token}&archive_format=zip`,
    `/transfer/fileidsextended?token=${token}`,
  ]) {
    const r = await get(p, { Accept: 'application/json' });
    assert.is(r.status, 401, p);
    assert.equal((await r.json()).message, 'download_password_required');
  }
  const wrong = await get(`/download/files?token=${token}`, { [HEADER]: 'wrong' });
  assert.equal([wrong.status, (await wrong.json()).message], [401, 'download_password_incorrect']);
  const listed = await get(`/download/files?token=${token}`, { [HEADER]: PASSWORD });
  assert.is(listed.status, 200);
  assert.equal(
    (await listed.json()).files.map((f: { name: string }) => f.name),
    ['a.bin', 'b.bin'],
  );
  const whole = await get(`/download?token=${token}&files_ids=${fa}`, { [HEADER]: PASSWORD });
  assert.is(sha256(Buffer.from(await whole.arrayBuffer())), sha256(a));
  const part = await get(`/download?token=${token}&files_ids=${fa}`, { [HEADER]: PASSWORD, Range: 'bytes=1000-1999' });
  assert.is(part.status, 206);
  assert.is(sha256(Buffer.from(await part.arrayBuffer())), sha256(a.subarray(1000, 2000)));
  const zip = await get(`/download?token=${token}&archive_format=zip`, { [HEADER]: PASSWORD });
  assert.is(zip.status, 200);
  assert.is(zip.headers.get('content-type'), 'application/zip');
  assert.ok((await zip.arrayBuffer()).byteLength > a.length + b.length);
});

test('browser: the page asks first; a wrong password is said; the right one keeps a proof and opens page and downloads', async () => {
  const data = patternBytes('pw-page', 5_000);
  const { t, token } = await available([{ name: 'secret-plans.pdf', data }], PASSWORD);
  const page = await get(`/?s=download&token=${token}`, { Accept: 'text/html' });
  assert.is(page.status, 401);
  const html = await page.text();
  assert.match(html, 'This link asks for a password');
  assert.match(html, 'This is not end-to-end encryption');
  assert.not.ok(html.includes('secret-plans.pdf'), 'nothing of the transfer before the password');
  const form = (password: string) =>
    fetch(`${s.url}/download/unlock`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, password }).toString(),
    });
  const wrong = await form('nope');
  assert.is(wrong.status, 401);
  assert.match(await wrong.text(), 'The password is not right.');
  const right = await form(PASSWORD);
  assert.is(right.status, 303);
  assert.match(right.headers.get('location')!, `/?s=download&token=${token}`);
  const cookie = right.headers.get('set-cookie')!.split(';')[0];
  assert.match(right.headers.get('set-cookie')!, /httponly/i);
  const opened = await get(`/?s=download&token=${token}`, { Accept: 'text/html', Cookie: cookie });
  assert.is(opened.status, 200);
  assert.match(await opened.text(), 'secret-plans.pdf');
  const file = await get(`/download?token=${token}&files_ids=${t.files[0].id}`, { Cookie: cookie });
  assert.is(sha256(Buffer.from(await file.arrayBuffer())), sha256(data));
  // A proof made up, or one of another link, opens nothing.
  assert.is((await get(`/download/files?token=${token}`, { Cookie: `${cookie.split('=')[0]}=forged` })).status, 401);
});

test('tries are throttled in the database as logins are: after five wrong ones even the right one waits', async () => {
  const { token } = await available([{ name: 'x.bin', data: Buffer.from('x') }], PASSWORD);
  for (let i = 0; i < 5; i++)
    assert.is((await get(`/download/files?token=${token}`, { [HEADER]: `wrong ${i}` })).status, 401);
  const blocked = await get(`/download/files?token=${token}`, { [HEADER]: PASSWORD });
  assert.is(blocked.status, 429);
  assert.is((await blocked.json()).message, 'rate_limit_exceeded');
  const rows = await sql(s, "SELECT key FROM login_failures WHERE key LIKE 'user:link:%'");
  assert.ok(rows.length >= 5);
});

test('a locked link refuses only the address that guessed: others get in, and the page says how long to wait', async () => {
  const { token } = await available([{ name: 'x.bin', data: Buffer.from('x') }], PASSWORD);
  const as = (client: string, password: string) =>
    get(`/download/files?token=${token}`, { [HEADER]: password, 'X-Forwarded-For': client });
  for (let i = 0; i < 8; i++) assert.is((await as('198.51.100.20', `wrong ${i}`)).status, i < 5 ? 401 : 429);
  const held = await as('198.51.100.20', PASSWORD);
  assert.is(held.status, 429);
  const wait = Number(held.headers.get('retry-after'));
  assert.ok(wait > 800 && wait <= 900, `Retry-After ${wait}`);
  assert.equal((await held.json()).details, [`retry_after=${wait}`]);
  // The rightful recipient, elsewhere, is not locked out by someone else's guesses.
  assert.is((await as('203.0.113.30', PASSWORD)).status, 200);
  // The form tells the guessing address how long, in the page's language.
  const form = (lang: string) =>
    fetch(`${s.url}/download/unlock`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        Accept: 'text/html',
        'Accept-Language': lang,
        'X-Forwarded-For': '198.51.100.20',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token, password: PASSWORD }).toString(),
    });
  const en = await form('en');
  assert.is(en.status, 429);
  assert.ok(Number(en.headers.get('retry-after')) > 800);
  assert.match(await en.text(), 'Too many failed attempts. Try again in 15 min.');
  assert.match(await (await form('de')).text(), 'Versuchen Sie es in 15 Min. erneut.');
});

test('a browser that unlocked the link before gets through even from an address that is locked', async () => {
  const { token } = await available([{ name: 'y.bin', data: Buffer.from('y') }], PASSWORD);
  const form = (password: string, cookie?: string) =>
    fetch(`${s.url}/download/unlock`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        Accept: 'text/html',
        'X-Forwarded-For': '198.51.100.40',
        'content-type': 'application/x-www-form-urlencoded',
        ...(cookie ? { Cookie: cookie } : {}),
      },
      body: new URLSearchParams({ token, password }).toString(),
    });
  const right = await form(PASSWORD);
  assert.is(right.status, 303);
  const cookie = right.headers.get('set-cookie')!.split(';')[0];
  // Someone behind the same address (one office, one NAT) locks it for this link.
  for (let i = 0; i < 6; i++) await form(`wrong ${i}`);
  assert.is((await form(PASSWORD)).status, 429, 'a browser without the proof waits');
  assert.is((await form(PASSWORD, cookie)).status, 303, 'the browser that unlocked before does not');
  const page = await get(`/?s=download&token=${token}`, {
    Accept: 'text/html',
    Cookie: cookie,
    'X-Forwarded-For': '198.51.100.40',
  });
  assert.is(page.status, 200);
  assert.match(await page.text(), 'y.bin');
});

test('filesender.py -d: a transfer without a password still works; with one, a clear error and no file', async () => {
  const apikey = await s.app.services.users.remoteSecret('bob');
  const py = new FileSenderPy({ baseUrl: `${s.url}/rest.php`, username: 'bob', apikey });
  const open = await available([{ name: 'open.txt', data: Buffer.from('open data') }]);
  const list = (await py.filesInTransfer(open.token)) as { id: number; name: string }[];
  assert.equal(
    list.map((f) => f.name),
    ['open.txt'],
  );
  assert.is((await py.downloadFile(open.token, list[0].id)).body.toString(), 'open data');

  const closed = await available([{ name: 'guarded.txt', data: Buffer.from('guarded data') }], PASSWORD);
  const refused = await py.send(
    py.build({ method: 'get', path: '/transfer/fileidsextended', data: { token: closed.token } }),
  );
  assert.equal([refused.status, refused.json.message], [401, 'download_password_required']);
  const direct = await py.downloadFile(closed.token, closed.t.files[0].id);
  assert.is(direct.status, 401);
  assert.not.ok(direct.body.toString().includes('guarded data'));
  assert.is(JSON.parse(direct.body.toString()).message, 'download_password_required');
});

test.run();
