import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { typedPasswordKey } from '../helpers/encryption/typed-password-key';
import { startTestServer, HEADER_SP, asUser, TestServer, sameDataAs } from '../helpers/server';
import { startTestSink, TestSink, addressOf } from '../helpers/mail';
import { patternBytes, inAWeek } from '../helpers/upload-client';
import { movableClock } from '../helpers/session';
import { startCuttingProxy, CuttingProxy } from '../helpers/cutting-proxy';
import { until } from '../helpers/until';
import { availableTransfer, encryptionFields } from '../helpers/factories';
import { Clamd, EICAR, startClamd } from '../helpers/system/clamd';
import { HOLD_RETRY_S } from '../../src/domain/virus-scans';
import { aeadText, encryptChunk, fileCrypto, generateFileIv } from '../../src/shared-crypto/format';
import { endAll } from '../helpers/end-all';

// Virus scanning (docs/sharing.md): a completed transfer's files are streamed to a real clamd (Debian's,
// started here with a signature database of the test's own); the transfer is "being checked" until every file
// is clean, and only then are its recipients mailed. Infected: blocked (or flagged), owner and admins mailed,
// the signature in the audit log, downloads refused. clamd down: held (admins see it) and tried again, or on
// with on_error "allow". Encrypted transfers are not scanned. On S3: test/storage/virus-scan-s3.test.ts.

const MiB = 1024 * 1024;
const CHUNK = 1 * MiB;
const alice = asUser('alice');
const root = asUser('root');
let clamd: Clamd;
let sink: TestSink;
let proxy: CuttingProxy;
let block: TestServer;
let flag: TestServer;
const clock = movableClock();

/** clamd reached through a relay that can refuse connections, as a clamd that is down would. */
const relayed = () => `tcp://127.0.0.1:${new URL(proxy.url).port}`;

test.before(async () => {
  clamd = await startClamd();
  sink = await startTestSink();
  proxy = await startCuttingProxy(`http://127.0.0.1:${clamd.port}`);
  const common = { ...HEADER_SP, mail: { transport: sink.url }, admin: ['root'], upload_chunk_size: CHUNK };
  block = await startTestServer(
    { ...common, antivirus: { clamd: relayed(), on_infected: 'block', on_error: 'hold', timeout_s: 10 } },
    { clock: clock.clock },
  );
  // This one reaches clamd through its unix socket.
  flag = await startTestServer({
    ...common,
    antivirus: { clamd: clamd.unixUrl, on_infected: 'flag', on_error: 'allow', max_bytes: 8 * MiB },
  });
  // The admin is known by address once seen.
  for (const s of [block, flag]) assert.is((await s.request('GET', '/config', { headers: root })).status, 200);
});
test.after(() => endAll(flag, block, proxy, sink, clamd));

async function upload(s: TestServer, files: { name: string; data: Buffer }[], extra: Record<string, unknown> = {}) {
  const { t, token } = await availableTransfer(s, files, { headers: alice, chunk: CHUNK, over: extra });
  return { id: t.id as number, token, files: t.files as { id: number }[], completed: t };
}

const view = async (s: TestServer, id: number) => (await s.request('GET', `/transfer/${id}`, { headers: alice })).json;

async function scanned(s: TestServer, id: number, status: string) {
  await until(`transfer ${id}'s scan ${status}`, async () => (await view(s, id)).virus_scan?.status === status, 30_000);
  return view(s, id);
}

async function mailsTo(s: TestServer, address: string, subject: RegExp) {
  await s.app.services.mailQueue.flush();
  return (await sink.messages()).filter((m) => addressOf(m.to) === address && subject.test(m.subject ?? ''));
}

const download = (s: TestServer, token: string) => s.request('GET', `/download?token=${token}`);

async function events(s: TestServer, id: number) {
  return (await s.request('GET', `/transfer/${id}/auditlog`, { headers: alice })).json as {
    event: string;
    detail?: string;
    target: { name?: string };
  }[];
}

test('config: antivirus is checked by `ferry config check`, off by default, shown to admins and not changed by PUT /config', async () => {
  const { validateConfig, checkConfig } = await import('../../src/config/validate');
  assert.is(validateConfig({}, 'test').antivirus, null);
  assert.equal(validateConfig({ antivirus: { clamd: 'unix:/run/clamav/clamd.ctl' } }, 'test').antivirus, {
    clamd: 'unix:/run/clamav/clamd.ctl',
    on_infected: 'block',
    on_error: 'hold',
    max_bytes: 104857600,
    timeout_s: 60,
  });
  const problems = checkConfig({
    antivirus: { clamd: 'localhost:3310', on_infected: 'delete', on_error: 'retry', max_bytes: 0, extra: 1 },
  });
  for (const key of [
    'antivirus.clamd',
    'antivirus.on_infected',
    'antivirus.on_error',
    'antivirus.max_bytes',
    'antivirus.extra: unknown key',
  ]) {
    assert.ok(
      problems.some((p) => p.startsWith(key)),
      `${key} in ${problems.join('; ')}`,
    );
  }
  assert.ok(checkConfig({ antivirus: {} }).some((p) => p === 'antivirus.clamd: required'));
  const shown = await block.request('GET', '/config', { headers: root });
  assert.equal(shown.json.antivirus, {
    clamd: relayed(),
    on_infected: 'block',
    on_error: 'hold',
    max_bytes: 104857600,
    timeout_s: 10,
  });
  assert.is((await block.request('GET', '/config', { headers: alice })).status, 403);
  const put = await block.request('PUT', '/config', { headers: root, json: { antivirus: null } });
  assert.equal([put.status, put.json.message, put.json.details], [400, 'rest_bad_parameter', ['antivirus']]);
});

test('clean: being checked until clamd says OK, then available and the recipient mailed', async () => {
  const t = await upload(block, [{ name: 'report.pdf', data: patternBytes('clean', 3 * CHUNK + 12345) }]);
  // The completion's answer: not available yet, its scan under way (or just done).
  assert.is.not(t.completed.status, 'available');
  const v = await scanned(block, t.id, 'clean');
  assert.is(v.status, 'available');
  assert.equal(v.virus_scan, { status: 'clean', blocked: false, error: null, files: [] });
  assert.is((await mailsTo(block, 'r@example.org', /sent you files/)).length, 1);
  const order = (await events(block, t.id)).map((e) => e.event);
  assert.ok(
    order.indexOf('upload_ended') < order.indexOf('virus_scan_clean') &&
      order.indexOf('virus_scan_clean') < order.indexOf('transfer_available'),
    order.join(),
  );
  assert.is((await download(block, t.token)).status, 200);
});

test('infected (block): never available, recipients not mailed, owner and admins told, signature audited, download refused', async () => {
  const t = await upload(block, [
    { name: 'fine.txt', data: patternBytes('fine', 5000) },
    { name: 'eicar.com', data: EICAR },
  ]);
  const v = await scanned(block, t.id, 'infected');
  assert.is(v.status, 'uploading');
  assert.equal(v.virus_scan, {
    status: 'infected',
    blocked: true,
    error: null,
    files: [{ file_id: t.files[1].id, signature: clamd.eicarName }],
  });
  const d = await download(block, t.token);
  assert.equal([d.status, d.json.message, d.json.details], [410, 'transfer_infected', ['token']]);
  const page = await block.request('GET', `/?s=download&token=${t.token}`);
  assert.match(page.text, /blocked|bloqué/i);
  assert.is((await mailsTo(block, 'r@example.org', /./)).filter((m) => (m.text ?? '').includes('eicar.com')).length, 0);
  for (const who of ['alice@example.org', 'root@example.org']) {
    const told = await mailsTo(block, who, new RegExp(`Virus found in transfer #${t.id}`));
    assert.is(told.length, 1, who);
    assert.match(told[0].text ?? '', clamd.eicarName);
    assert.match(told[0].text ?? '', 'eicar.com');
    assert.match(told[0].text ?? '', /blocked/);
  }
  const found = (await events(block, t.id)).filter((e) => e.event === 'virus_found');
  assert.equal(
    found.map((e) => [e.target.name, e.detail]),
    [['eicar.com', clamd.eicarName]],
  );
});

test('infected past the first chunk of a larger file (flag): made available with the finding shown, everyone told', async () => {
  const data = patternBytes('large', 4 * CHUNK + 777);
  // Straddling the boundary of the second and third chunks (and of the 1 MiB blocks sent to clamd).
  clamd.pattern.copy(data, 2 * CHUNK - 13);
  const t = await upload(flag, [
    { name: 'clean.bin', data: patternBytes('other', 2 * CHUNK) },
    { name: 'buried.bin', data },
  ]);
  const v = await scanned(flag, t.id, 'infected');
  assert.is(v.status, 'available');
  assert.equal(v.virus_scan, {
    status: 'infected',
    blocked: false,
    error: null,
    files: [{ file_id: t.files[1].id, signature: clamd.patternName }],
  });
  assert.is(
    (await mailsTo(flag, 'r@example.org', /sent you files/)).filter((m) => (m.text ?? '').includes('buried.bin'))
      .length,
    1,
  );
  const told = await mailsTo(flag, 'root@example.org', new RegExp(`Virus found in transfer #${t.id}`));
  assert.is(told.length, 1);
  assert.match(told[0].text ?? '', /made available with a warning/);
  assert.is((await download(flag, t.token)).status, 200);
  // The same bytes with the pattern cut in two are clean: clamd saw the file whole, in order.
  const cut = patternBytes('large', 4 * CHUNK + 777);
  clamd.pattern.subarray(0, 16).copy(cut, CHUNK);
  clamd.pattern.subarray(16).copy(cut, 3 * CHUNK);
  const clean = await upload(flag, [{ name: 'halves.bin', data: cut }]);
  assert.is((await scanned(flag, clean.id, 'clean')).status, 'available');
});

test('clamd down (hold): held, recipients not mailed, admins see it in GET /transfer/@all; clamd back: released', async () => {
  proxy.cut(600_000);
  const t = await upload(block, [{ name: 'wait.txt', data: patternBytes('wait', 2048) }]);
  const v = await scanned(block, t.id, 'held');
  assert.is(v.status, 'uploading');
  assert.match(v.virus_scan.error, /clamd at tcp:\/\/127\.0\.0\.1:\d+/);
  const d = await download(block, t.token);
  assert.equal([d.status, d.json.message], [409, 'transfer_being_checked']);
  const all = (await block.request('GET', '/transfer/@all', { headers: root })).json as {
    id: number;
    virus_scan: { status: string } | null;
  }[];
  assert.is(all.find((x) => x.id === t.id)?.virus_scan?.status, 'held');
  assert.ok((await events(block, t.id)).some((e) => e.event === 'virus_scan_held'));
  assert.is(
    (await mailsTo(block, 'r@example.org', /sent you files/)).filter((m) => (m.text ?? '').includes('wait.txt')).length,
    0,
  );
  // Not tried again before its time, even when a node looks.
  await block.app.services.virusScans.kick();
  assert.is((await view(block, t.id)).virus_scan.status, 'held');
  proxy.cut(0);
  clock.advance(HOLD_RETRY_S + 1);
  await block.app.services.virusScans.kick();
  const after = await scanned(block, t.id, 'clean');
  assert.is(after.status, 'available');
  assert.is(
    (await mailsTo(block, 'r@example.org', /sent you files/)).filter((m) => (m.text ?? '').includes('wait.txt')).length,
    1,
  );
});

test('clamd down (allow): goes on unscanned, and the audit log says why', async () => {
  const down = await startTestServer({
    ...HEADER_SP,
    upload_chunk_size: CHUNK,
    antivirus: { clamd: `tcp://127.0.0.1:${new URL(proxy.url).port}`, on_error: 'allow' },
  });
  try {
    proxy.cut(600_000);
    const created = await upload(down, [{ name: 'a.txt', data: Buffer.from('abc') }]);
    const v = await scanned(down, created.id, 'not_scanned');
    assert.is(v.status, 'available');
    const failed = (await events(down, created.id)).find((e) => e.event === 'virus_scan_failed');
    assert.match(failed?.detail ?? '', /clamd at/);
  } finally {
    proxy.cut(0);
    await down.close();
  }
});

test('clamd late (hold): a scan clamd does not answer within timeout_s is held, and the error says so', async () => {
  const late = await startTestServer({
    ...HEADER_SP,
    upload_chunk_size: CHUNK,
    antivirus: { clamd: clamd.url, timeout_s: 1 },
  });
  // A stopped clamd still accepts connections (the kernel's backlog) but reads and answers nothing.
  process.kill(clamd.pid, 'SIGSTOP');
  try {
    const created = await upload(late, [{ name: 'slow.txt', data: Buffer.from('abc') }]);
    const v = await scanned(late, created.id, 'held');
    assert.match(v.virus_scan.error, /no answer within 1 s/);
    assert.is(v.status, 'uploading');
  } finally {
    process.kill(clamd.pid, 'SIGCONT');
    await late.close();
  }
});

test('files larger than max_bytes are not sent to clamd, and the audit log says so', async () => {
  const t = await upload(flag, [{ name: 'huge.bin', data: Buffer.concat([EICAR, patternBytes('huge', 8 * MiB)]) }]);
  const v = await scanned(flag, t.id, 'not_scanned');
  assert.is(v.status, 'available');
  assert.is(v.virus_scan.error, '1 file(s) larger than max_bytes (8388608)');
  const skipped = (await events(flag, t.id)).find((e) => e.event === 'virus_scan_skipped');
  assert.equal([skipped?.target.name, skipped?.detail], ['huge.bin', 'larger than max_bytes (8388608)']);
});

test('antivirus turned off: a transfer still waiting is released unscanned by a node started without it', async () => {
  proxy.cut(600_000);
  const first = await startTestServer({ ...HEADER_SP, upload_chunk_size: CHUNK, antivirus: { clamd: relayed() } });
  const again = {
    ...HEADER_SP,
    upload_chunk_size: CHUNK,
    ...sameDataAs(first),
  };
  let second: TestServer | null = null;
  try {
    const created = await upload(first, [{ name: 'later.txt', data: Buffer.from('abc') }]);
    await scanned(first, created.id, 'held');
    // The same data on a node started without antivirus (the first keeps its files until the test ends).
    second = await startTestServer(again);
    const v = await scanned(second, created.id, 'not_scanned');
    assert.is(v.status, 'available');
    assert.is(v.virus_scan.error, 'scanning was turned off');
  } finally {
    proxy.cut(0);
    await second?.close();
    await first.close();
  }
});

test('encrypted transfers are not scanned: available at once, marked so, and the recipient page says so', async () => {
  const iv = generateFileIv();
  const created = await block.request('POST', '/transfer', {
    headers: alice,
    json: {
      files: [{ name: 'secret.com', size: EICAR.length, iv, aead: btoa(aeadText(EICAR.length, CHUNK, iv)) }],
      recipients: ['r@example.org'],
      from: 'alice@example.org',
      expires: inAWeek(),
      ...encryptionFields(),
    },
  });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  const key = await typedPasswordKey('Correct Horse 9 battery!', t.salt, 1000);
  const f = t.files[0];
  const enc = Buffer.from(await encryptChunk(key, fileCrypto(f.iv, f.aead, CHUNK), 0, EICAR));
  const put = await block.request('PUT', `/file/${f.id}/chunk/0`, {
    headers: {
      ...alice,
      'content-type': 'application/octet-stream',
      'X-Filesender-Chunk-Size': String(EICAR.length),
      'X-Filesender-File-Size': String(f.size),
    },
    body: enc,
  });
  assert.is(put.status, 200, put.text);
  assert.is((await block.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  const done = await block.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.json.status, 'available');
  assert.equal(done.json.virus_scan, { status: 'encrypted', blocked: false, error: null, files: [] });
  const page = await block.request('GET', `/?s=download&token=${done.json.recipients[0].token}`);
  assert.match(page.text, /not checked for viruses: the files are end-to-end encrypted/i);
});

test.run();
