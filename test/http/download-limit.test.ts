import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import http from 'node:http';
import { startTestServer, HEADER_SP, asUser, TestServer } from '../helpers/server';
import { patternBytes, sendChunks, sha256, inAWeek } from '../helpers/upload-client';
import { until } from '../helpers/until';

// Download limits (docs/sharing.md): per link and file, counted when the last byte goes out, exact under
// racing downloads; a resumed (Range) download does not count again, a ZIP counts one per file; a spent link
// answers 410; the owner sees the counts and may raise the limit.

let s: TestServer;
const alice = asUser('alice');
const bob = asUser('bob');
const MiB = 1024 * 1024;

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP });
});
test.after(async () => {
  await s.close();
});

async function available(files: { name: string; data: Buffer }[], limit: unknown, recipients = ['r@example.org']) {
  const created = await s.request('POST', '/transfer', {
    headers: alice,
    json: {
      files: files.map((f) => ({ name: f.name, size: f.data.length })),
      recipients,
      from: 'alice@example.org',
      expires: inAWeek(),
      download_limit: limit,
    },
  });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  for (const [i, f] of t.files.entries()) {
    await sendChunks(s.request, f.id, files[i].data, 5 * MiB, { headers: alice });
    assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  }
  const done = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  return { t: done.json, tokens: done.json.recipients.map((r: { token: string }) => r.token) as string[] };
}

const get = (p: string, headers: Record<string, string> = {}) =>
  fetch(`${s.url}${p}`, { headers, signal: AbortSignal.timeout(30_000) });
const fileUrl = (token: string, id: number) => `/download?token=${token}&files_ids=${id}`;

/** The end of a download is recorded as its last byte leaves, a moment after the client has it. */
async function settled(id: number, total: number) {
  await until(
    `${total} downloads counted`,
    async () => (await counts(id)).reduce((n, c) => n + c.downloads, 0) >= total,
    10_000,
  );
}

async function counts(id: number) {
  const r = await s.request('GET', `/transfer/${id}`, { headers: alice });
  return r.json.download_counts as { recipient_id: number; file_id: number; downloads: number }[];
}

test('the limit is taken on POST /transfer, shown to the owner, and bad values are refused naming the field', async () => {
  const { t } = await available([{ name: 'a.bin', data: patternBytes('shown', 1000) }], 3);
  assert.is(t.download_limit, 3);
  assert.equal(t.download_counts, []);
  const plain = await available([{ name: 'b.bin', data: patternBytes('plain', 10) }], undefined);
  assert.is(plain.t.download_limit, null);
  for (const bad of [0, -1, 1.5, '2', true, 10_000_000]) {
    const r = await s.request('POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name: 'x', size: 1 }], download_limit: bad }),
    });
    assert.is(r.status, 400, `download_limit ${JSON.stringify(bad)}`);
    assert.is(r.json.message, 'rest_bad_parameter');
    assert.equal(r.json.details, ['download_limit']);
  }
});

test('a Range resume does not count again; the next whole download is refused, and a spent link answers 410 with a page', async () => {
  const data = patternBytes('resume', 300_000);
  const { t, tokens } = await available([{ name: 'r.bin', data }], 1);
  const url = fileUrl(tokens[0], t.files[0].id);
  const first = await get(url, { Range: 'bytes=0-99999' });
  assert.is(first.status, 206);
  const head = Buffer.from(await first.arrayBuffer());
  assert.equal(await counts(t.id), [], 'not counted before the last byte');
  const rest = await get(url, { Range: 'bytes=100000-' });
  assert.is(rest.status, 206);
  const tail = Buffer.from(await rest.arrayBuffer());
  assert.is(sha256(Buffer.concat([head, tail])), sha256(data));
  await settled(t.id, 1);
  assert.equal(await counts(t.id), [{ recipient_id: t.recipients[0].id, file_id: t.files[0].id, downloads: 1 }]);

  const again = await get(url, { Accept: 'application/json' });
  assert.is(again.status, 410);
  assert.is((await again.json()).message, 'download_limit_reached');
  const page = await get(`/?s=download&token=${tokens[0]}`, { Accept: 'text/html' });
  assert.is(page.status, 410);
  assert.match(await page.text(), /no downloads left/);
  const files = await get(`/download/files?token=${tokens[0]}`);
  assert.is(files.status, 410);
});

test('two downloads racing for the last one: exactly one gets bytes, the others a refusal before any byte', async () => {
  const data = patternBytes('race', 8 * MiB);
  const { t, tokens } = await available([{ name: 'big.bin', data }], 1);
  const url = fileUrl(tokens[0], t.files[0].id);
  // Plain requests whose bodies are not read: the winner's response is still being sent while the others ask.
  const answers = await Promise.all(
    Array.from(
      { length: 5 },
      () =>
        new Promise<http.IncomingMessage>((resolve, reject) =>
          http.get(`${s.url}${url}`, { headers: { Accept: 'application/json' } }, resolve).on('error', reject),
        ),
    ),
  );
  const statuses = answers.map((a) => a.statusCode).sort();
  assert.equal(statuses, [200, 410, 410, 410, 410]);
  const bodies = await Promise.all(
    answers.map(async (a) => {
      const parts: Buffer[] = [];
      for await (const c of a) parts.push(c as Buffer);
      return { status: a.statusCode, body: Buffer.concat(parts) };
    }),
  );
  for (const b of bodies) {
    if (b.status === 200) assert.is(sha256(b.body), sha256(data));
    else assert.is(JSON.parse(b.body.toString()).message, 'download_limit_reached');
  }
  await settled(t.id, 1);
  assert.equal(
    (await counts(t.id)).map((c) => c.downloads),
    [1],
  );
  const log = await s.request('GET', `/transfer/${t.id}/auditlog`, { headers: alice });
  assert.is(
    log.json.filter((e: { event: string }) => e.event === 'download_refused').length,
    4,
    'each refusal is in the audit log',
  );
});

test('a download cut short can be started again from byte 0 by the same link; it counts once', async () => {
  const data = patternBytes('cut', 8 * MiB);
  const { t, tokens } = await available([{ name: 'cut.bin', data }], 1);
  const url = fileUrl(tokens[0], t.files[0].id);
  const ac = new AbortController();
  const cut = await fetch(`${s.url}${url}`, { signal: ac.signal });
  assert.is(cut.status, 200);
  const reader = cut.body!.getReader();
  await reader.read();
  ac.abort();
  await reader.cancel().catch(() => undefined);
  // The server notices the closed socket and releases the claim; bounded wait for it.
  let retry: Response | undefined;
  for (let i = 0; i < 100; i++) {
    retry = await get(url, { Accept: 'application/json' });
    if (retry.status === 200) break;
    await retry.arrayBuffer();
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.is(retry!.status, 200);
  assert.is(sha256(Buffer.from(await retry!.arrayBuffer())), sha256(data));
  await settled(t.id, 1);
  assert.equal(
    (await counts(t.id)).map((c) => c.downloads),
    [1],
  );
  assert.is((await get(url)).status, 410);
});

/** A GET whose answer's head is back and whose body is not read (the server goes on sending into the socket). */
const opened = (p: string, headers: Record<string, string> = {}) =>
  new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get(`${s.url}${p}`, { headers: { Accept: 'application/json', ...headers } }, resolve).on('error', reject),
  );

async function readAll(a: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of a) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

test('a byte, then six `Range: bytes=1-` at once: one answer sends the rest, five are refused; one copy in all', async () => {
  const data = patternBytes('six', 8 * MiB);
  const { t, tokens } = await available([{ name: 'six.bin', data }], 1);
  const url = fileUrl(tokens[0], t.files[0].id);
  const first = await get(url, { Range: 'bytes=0-0' });
  assert.is(first.status, 206);
  const part0 = Buffer.from(await first.arrayBuffer());
  const answers = await Promise.all(Array.from({ length: 6 }, () => opened(url, { Range: 'bytes=1-' })));
  assert.equal(answers.map((a) => a.statusCode).sort(), [206, 410, 410, 410, 410, 410]);
  for (const a of answers) {
    const body = await readAll(a);
    if (a.statusCode === 206) assert.is(sha256(Buffer.concat([part0, body])), sha256(data), 'the one copy is whole');
    else assert.is(JSON.parse(body.toString()).message, 'download_limit_reached');
  }
  await settled(t.id, 1);
  assert.equal(
    (await counts(t.id)).map((c) => c.downloads),
    [1],
  );
  // Sent again one by one, the same bytes are no more copies.
  for (const range of ['bytes=1-', 'bytes=0-', `bytes=${2 * MiB}-`]) {
    const again = await get(url, { Range: range, Accept: 'application/json' });
    assert.is(again.status, 410, range);
    assert.is((await again.json()).message, 'download_limit_reached');
  }
  assert.is((await get(url, { Accept: 'application/json' })).status, 410);
});

test('a whole download held open unread, and five `Range: bytes=1-` beside it: all five refused', async () => {
  const data = patternBytes('held', 8 * MiB);
  const { t, tokens } = await available([{ name: 'held.bin', data }], 1);
  const url = fileUrl(tokens[0], t.files[0].id);
  const held = await opened(url);
  assert.is(held.statusCode, 200);
  const ranges = await Promise.all(Array.from({ length: 5 }, () => opened(url, { Range: 'bytes=1-' })));
  assert.equal(
    ranges.map((a) => a.statusCode),
    [410, 410, 410, 410, 410],
  );
  for (const a of ranges) assert.is(JSON.parse((await readAll(a)).toString()).message, 'download_limit_reached');
  assert.is(sha256(await readAll(held)), sha256(data));
  await settled(t.id, 1);
  assert.equal(
    (await counts(t.id)).map((c) => c.downloads),
    [1],
  );
});

test('a download cut near its end (its last bytes written but not read) is resumed with Range; it counts once', async () => {
  const data = patternBytes('near', 8 * MiB);
  const { t, tokens } = await available([{ name: 'near.bin', data }], 1);
  const url = fileUrl(tokens[0], t.files[0].id);
  const KEEP = 8_126_464;
  const a = await opened(url);
  assert.is(a.statusCode, 200);
  // The recipient reads 8,126,464 bytes and pauses: the server writes the rest into the connection's buffers
  // and counts its download; then the recipient goes away without reading them.
  const parts: Buffer[] = [];
  let got = 0;
  await new Promise<void>((resolve) => {
    const onData = (c: Buffer) => {
      parts.push(c);
      got += c.length;
      if (got >= KEEP) {
        a.pause();
        a.off('data', onData);
        resolve();
      }
    };
    a.on('data', onData);
  });
  await settled(t.id, 1);
  a.destroy();
  const kept = Buffer.concat(parts).subarray(0, KEEP);
  const rest = await get(url, { Range: `bytes=${KEEP}-`, 'If-Range': a.headers.etag! });
  assert.is(rest.status, 206);
  assert.is(sha256(Buffer.concat([kept, Buffer.from(await rest.arrayBuffer())])), sha256(data));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(
    (await counts(t.id)).map((c) => c.downloads),
    [1],
    'the resume is the same copy',
  );
  // The copy's last bytes may be resumed again while what is sent again stays under half the file in all; a
  // new copy may not.
  const tail = await get(url, { Range: `bytes=${7 * MiB}-` });
  assert.is(tail.status, 206);
  await tail.arrayBuffer();
  const refused = await get(url, { Range: `bytes=${5 * MiB}-`, Accept: 'application/json' });
  assert.is(refused.status, 410);
  assert.is((await get(url, { Accept: 'application/json' })).status, 410);
  const page = await get(`/?s=download&token=${tokens[0]}`, { Accept: 'text/html' });
  assert.is(page.status, 410);
  assert.match(await page.text(), /no downloads left/);
});

test('a file fetched chunk after chunk with Range, each asked as the last one ends, is one copy', async () => {
  const data = patternBytes('chunks', 6 * MiB);
  const { t, tokens } = await available([{ name: 'chunks.bin', data }], 1);
  const url = fileUrl(tokens[0], t.files[0].id);
  const parts: Buffer[] = [];
  // As the page and `ferry get` fetch an encrypted file: the next request leaves as soon as the last body is in.
  for (let at = 0; at < data.length; at += 256 * 1024) {
    const r = await get(url, { Range: `bytes=${at}-${Math.min(at + 256 * 1024, data.length) - 1}` });
    assert.is(r.status, 206, `the chunk at ${at}`);
    parts.push(Buffer.from(await r.arrayBuffer()));
  }
  assert.is(sha256(Buffer.concat(parts)), sha256(data));
  await settled(t.id, 1);
  assert.equal(
    (await counts(t.id)).map((c) => c.downloads),
    [1],
  );
  assert.is((await get(url, { Accept: 'application/json' })).status, 410);
});

test('a ZIP counts one per file; a file spent refuses the archive that holds it; other links are their own', async () => {
  const a = patternBytes('za', 20_000);
  const b = patternBytes('zb', 30_000);
  const { t, tokens } = await available(
    [
      { name: 'a.bin', data: a },
      { name: 'b.bin', data: b },
    ],
    2,
    ['r1@example.org', 'r2@example.org'],
  );
  const [fa, fb] = t.files.map((f: { id: number }) => f.id);
  const zip = await get(`/download?token=${tokens[0]}&archive_format=zip`);
  assert.is(zip.status, 200);
  await zip.arrayBuffer();
  await settled(t.id, 2);
  const byFile = async () =>
    Object.fromEntries(
      (await counts(t.id)).filter((c) => c.recipient_id === t.recipients[0].id).map((c) => [c.file_id, c.downloads]),
    );
  assert.equal(await byFile(), { [fa]: 1, [fb]: 1 });
  assert.is((await (await get(fileUrl(tokens[0], fa))).arrayBuffer()).byteLength, a.length);
  await settled(t.id, 3);
  // a.bin is spent for this link (2 of 2), b.bin is not: the ZIP of both is refused, b.bin alone is not.
  const refused = await get(`/download?token=${tokens[0]}&archive_format=zip`, { Accept: 'application/json' });
  assert.is(refused.status, 410);
  assert.equal((await refused.json()).details, ['files_ids']);
  const listed = await (await get(`/download/files?token=${tokens[0]}`)).json();
  assert.equal(
    listed.files.map((f: { downloads_left: boolean }) => f.downloads_left),
    [false, true],
  );
  assert.is(listed.download_limit, 2);
  const page = await (await get(`/?s=download&token=${tokens[0]}`)).text();
  assert.match(page, /No downloads left/);
  assert.is((await get(fileUrl(tokens[0], fb))).status, 200);
  // The second recipient's link has its own downloads.
  assert.is((await get(`/download?token=${tokens[1]}&archive_format=zip`)).status, 200);
});

test('the owner raises the limit and the spent link works again; others cannot; bad values are refused', async () => {
  const data = patternBytes('raise', 5000);
  const { t, tokens } = await available([{ name: 'x.bin', data }], 1);
  const url = fileUrl(tokens[0], t.files[0].id);
  await (await get(url)).arrayBuffer();
  await settled(t.id, 1);
  assert.is((await get(url)).status, 410);
  assert.is((await s.request('PUT', `/transfer/${t.id}`, { headers: bob, json: { download_limit: 5 } })).status, 404);
  const bad = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { download_limit: 0 } });
  assert.is(bad.status, 400);
  assert.equal(bad.json.details, ['download_limit']);
  const raised = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { download_limit: 2 } });
  assert.is(raised.status, 200, raised.text);
  assert.is(raised.json.download_limit, 2);
  assert.is((await get(url)).status, 200);
  const log = await s.request('GET', `/transfer/${t.id}/auditlog`, { headers: alice });
  assert.ok(log.json.some((e: { event: string }) => e.event === 'download_limit_changed'));
  const none = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { download_limit: null } });
  assert.is(none.json.download_limit, null);
});

test.run();
