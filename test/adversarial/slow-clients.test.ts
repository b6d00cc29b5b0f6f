import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, TestServer, asUser } from '../helpers/server';
import { inAWeek, patternBytes, sendChunks } from '../helpers/upload-client';
import { rawConnect, RawConn, within } from '../helpers/raw-socket';
import { signedPath, nowS } from '../helpers/signing';
import { DEFAULT_TIMEOUTS } from '../../src/http/server';
import { defaultConfig } from '../../src/config/defaults';
import { alice, bob, dbHash, assertErrorShape } from './fixture';
import { until } from '../helpers/until';

// Slow and greedy clients: idle and trickling connections cannot hold the server, each stage of a
// request has a deadline, and one principal cannot take more than its share of concurrent uploads.
const CHUNK = 64 * 1024;
const SHORT = { headersMs: 1000, keepAliveMs: 400, idleMs: 1500, checkEveryMs: 100 };
// The machine running the tests is shared: a cut may come this much later than its deadline.
const SLACK_MS = 1500;
const CAP = 3;

let plain: TestServer; // production timeouts and limits
let short: TestServer; // the same code with SHORT timeouts
let capped: TestServer; // max_concurrent_chunk_uploads = CAP

test.before(async () => {
  plain = await startTestServer(HEADER_SP);
  short = await startTestServer({ ...HEADER_SP, upload_chunk_size: CHUNK }, { timeouts: SHORT });
  capped = await startTestServer({ ...HEADER_SP, upload_chunk_size: CHUNK, max_concurrent_chunk_uploads: CAP });
});
test.after(async () => {
  for (const s of [plain, short, capped]) s.server.server.closeAllConnections();
  await Promise.all([plain.close(), short.close(), capped.close()]);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function newFile(s: TestServer, user = alice, size = 4 * CHUNK): Promise<{ id: number; uid: string }> {
  const r = await s.request('POST', '/transfer', {
    headers: user,
    json: {
      files: [{ name: 'big.bin', size }],
      recipients: ['r@example.org'],
      from: user['X-Remote-Email'],
      expires: inAWeek(),
    },
  });
  assert.is(r.status, 201, r.text);
  return r.json.files[0];
}

function chunkHead(fileId: number, offset: number, length: number, user = alice, query = ''): string {
  const who = Object.entries(user)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `PUT /file/${fileId}/chunk/${offset}${query} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\n${who}\r\n`;
}

const slotsOf = (s: TestServer, who: string) => s.app.services.uploadSlots.inUse(who);

test('production timeouts stay 20 s for headers, 5 s for idle keep-alive, 120 s of silence, no overall deadline; the upload cap leaves room for 64 uploads at once', () => {
  assert.equal(
    { ...DEFAULT_TIMEOUTS },
    { headersMs: 20_000, keepAliveMs: 5_000, idleMs: 120_000, checkEveryMs: 1_000 },
  );
  const srv = plain.server.server;
  assert.equal(
    [srv.headersTimeout, srv.keepAliveTimeout, srv.timeout, srv.requestTimeout],
    [20_000, 5_000, 120_000, 0],
  );
  assert.ok(defaultConfig().max_concurrent_chunk_uploads >= 64, 'the benchmark sends 64 uploads at once from one user');
});

test('500 idle connections, half of them trickling a request line byte by byte, and /info still answers under 100 ms', async () => {
  const conns: RawConn[] = [];
  for (let batch = 0; batch < 5; batch++)
    conns.push(...(await Promise.all(Array.from({ length: 100 }, () => rawConnect(plain.server.port)))));
  const slow = conns.filter((_, i) => i % 2 === 0);
  const line = 'GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200);
  let sent = 0;
  const trickle = setInterval(() => {
    if (sent < line.length) for (const c of slow) c.write(line[sent]);
    sent++;
  }, 50);
  try {
    await sleep(300);
    const held = await new Promise<number>((ok) => plain.server.server.getConnections((_e, n) => ok(n)));
    assert.ok(held >= 500, `the server holds ${held} connections`);
    // Other processes share this machine's 2 cores: a round that a neighbour's burst slowed is measured
    // again, up to three rounds; the best round must be under 100 ms for every one of its 20 requests.
    const rounds: { median: number; max: number; parallel: number }[] = [];
    for (let round = 0; round < 3 && !rounds.some((r) => r.max < 100); round++) {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        const r = await plain.request('GET', '/info');
        times.push(performance.now() - t0);
        assert.is(r.status, 200);
      }
      const t0 = performance.now();
      const all = await Promise.all(Array.from({ length: 10 }, () => plain.request('GET', '/info')));
      assert.ok(all.every((r) => r.status === 200));
      times.sort((a, b) => a - b);
      rounds.push({ median: times[10], max: times[times.length - 1], parallel: performance.now() - t0 });
    }
    for (const r of rounds) {
      console.log(
        `  /info with ${held} idle connections open: median ${r.median.toFixed(1)} ms, max ${r.max.toFixed(1)} ms; 10 at once ${r.parallel.toFixed(1)} ms`,
      );
    }
    const best = Math.min(...rounds.map((r) => r.max));
    assert.ok(best < 100, `max ${best} ms`);
    assert.ok(
      conns.every((c) => !c.sock.destroyed),
      'still well inside the 20 s headers deadline',
    );
  } finally {
    clearInterval(trickle);
    for (const c of conns) c.sock.destroy();
  }
});

test('64 chunks in flight from one user (the benchmark burst) are never refused', async () => {
  const f = await newFile(plain, alice, 64 * 1024);
  const rs = await sendChunks(plain.request, f.id, patternBytes('burst', 64 * 1024), 1024, {
    parallel: 64,
    headers: alice,
  });
  assert.equal(
    rs.map((r) => r.status).filter((s) => s !== 200),
    [],
  );
});

test('slowloris: headers trickled byte by byte are cut at the headers deadline with 408, and so is a connection that never speaks', async () => {
  const [trickler, silent] = await Promise.all([rawConnect(short.server.port), rawConnect(short.server.port)]);
  const head = 'GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'b'.repeat(100);
  let i = 0;
  const drip = setInterval(() => trickler.write(head[i++ % head.length]), 50);
  try {
    for (const [c, what] of [
      [trickler, 'trickled headers'],
      [silent, 'silent connection'],
    ] as const) {
      const ms = await within(c.closed, SHORT.headersMs + SLACK_MS, what);
      assert.ok(ms >= SHORT.headersMs - 50, `${what} cut after ${ms} ms, before the deadline`);
      assert.match(c.received(), /^HTTP\/1\.1 408 /, what);
    }
  } finally {
    clearInterval(drip);
  }
  assert.ok(i > 15, 'bytes kept arriving all along');
});

test('an idle keep-alive connection is closed after keepAliveTimeout; the answer before it was complete', async () => {
  const c = await rawConnect(short.server.port);
  c.write('GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await c.waitFor(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\n\{[\s\S]*\}$/);
  const answered = Date.now() - c.openedAt;
  assert.match(c.received(), /keep-alive/i);
  const idle = (await within(c.closed, SHORT.keepAliveMs + SLACK_MS, 'idle keep-alive')) - answered;
  assert.ok(idle >= SHORT.keepAliveMs - 100, `closed ${idle} ms after the answer`);
});

test('a chunk body that stops flowing is cut after the idle timeout: nothing is recorded, the upload slot is freed, the chunk can be sent again', async () => {
  const f = await newFile(short);
  const c = await rawConnect(short.server.port);
  c.write(chunkHead(f.id, 0, CHUNK));
  c.write(patternBytes('stall', 1000));
  const stalledAt = Date.now() - c.openedAt;
  await until('the upload started', () => slotsOf(short, 'user:alice') === 1, 3000);
  const cut = (await within(c.closed, SHORT.idleMs + SLACK_MS, 'stalled body')) - stalledAt;
  assert.ok(cut >= SHORT.idleMs - 100, `cut ${cut} ms after the last byte`);
  await until('slot released', () => slotsOf(short, 'user:alice') === 0, 3000);
  const file = await short.request('GET', `/file/${f.id}`, { headers: alice });
  assert.equal([file.json.received, file.json.ranges], [0, []]);
  const again = await sendChunks(short.request, f.id, patternBytes('full', 4 * CHUNK), CHUNK, {
    headers: alice,
    order: [0],
  });
  assert.is(again[0].status, 200, again[0].text);
  assert.is(again[0].json.received, CHUNK);
});

/** Opens `n` chunk uploads that send their headers and a few bytes, then wait: each holds a slot. */
async function holdUploads(s: TestServer, fileId: number, n: number): Promise<RawConn[]> {
  const before = slotsOf(s, 'user:alice');
  const conns = await Promise.all(Array.from({ length: n }, () => rawConnect(s.server.port)));
  conns.forEach((c, i) => {
    c.write(chunkHead(fileId, i * CHUNK, CHUNK));
    c.write(patternBytes(`held${i}`, CHUNK).subarray(0, 10));
  });
  await until(`${n} uploads holding slots`, () => slotsOf(s, 'user:alice') === before + n, 3000);
  return conns;
}

/** With CAP uploads held, one more from the same user is refused before its body is read, and the socket closed. */
async function assertRefusedBeforeBody(s: TestServer, fileId: number): Promise<void> {
  const c = await rawConnect(s.server.port);
  c.write(chunkHead(fileId, 3 * CHUNK, CHUNK)); // headers only: the body is never sent
  const text = await c.waitFor(/\r\n\r\n\{.*\}$/s);
  assert.match(text, /^HTTP\/1\.1 429 /);
  assert.match(text, /\r\nRetry-After: 1\r\n/i);
  assert.match(text, /\r\nConnection: close\r\n/i);
  assert.match(text, /"message":"rate_limit_exceeded"/);
  await within(c.closed, 2000, 'connection closed after the 429');
}

test(`cap of ${CAP} uploads per user: one more answers 429 with Retry-After before its body is read, stores nothing, and a keep-alive client goes on`, async () => {
  const f = await newFile(capped);
  const secret = await capped.app.services.accounts.addRemoteApp('portal', false);
  const held = await holdUploads(capped, f.id, CAP);
  // A refused signed request gives its signature back, but the sweep of expired ones may change that table.
  const before = await dbHash(capped, ['used_signatures']);
  await assertRefusedBeforeBody(capped, f.id);
  // Through fetch, body and all: the same answer, and the next request of the same client works at once.
  const r = await capped.request('PUT', `/file/${f.id}/chunk/${3 * CHUNK}`, {
    headers: { ...alice, 'content-type': 'application/octet-stream' },
    body: patternBytes('x', CHUNK),
  });
  assert.is(r.status, 429, r.text);
  assertErrorShape(r, '429');
  assert.is(r.json.message, 'rate_limit_exceeded');
  assert.is(r.headers.get('retry-after'), '1');
  assert.is((await capped.request('GET', '/info')).status, 200);
  // A chunk key acts as the Transfer's owner, so it shares alice's slots.
  const keyed = await capped.request('PUT', `/file/${f.id}/chunk/${3 * CHUNK}?key=${f.uid}`, {
    headers: { 'content-type': 'application/octet-stream' },
    body: patternBytes('k', CHUNK),
  });
  assert.is(keyed.status, 429, keyed.text);
  // So does a remote application acting for alice (its signed body is read first: the signature covers it).
  const body = patternBytes('s', CHUNK);
  const args = { remote_application: 'portal', remote_user: 'alice', timestamp: nowS() };
  const signed = signedPath({
    method: 'PUT',
    host: new URL(capped.url).host,
    path: `/file/${f.id}/chunk/${3 * CHUNK}`,
    args,
    secret,
    body,
  });
  const viaApp = await capped.request('PUT', signed, { headers: { 'content-type': 'application/octet-stream' }, body });
  assert.equal([viaApp.status, viaApp.json?.message], [429, 'rate_limit_exceeded'], viaApp.text);
  assert.is(await dbHash(capped, ['used_signatures']), before, 'refused uploads change nothing');
  // Another user is not held back by alice.
  const g = await newFile(capped, bob, CHUNK);
  const other = await sendChunks(capped.request, g.id, patternBytes('bob', CHUNK), CHUNK, { headers: bob });
  assert.is(other[0].status, 200, other[0].text);
  // The held uploads finish normally and give their slots back.
  held.forEach((c, i) => c.write(patternBytes(`held${i}`, CHUNK).subarray(10)));
  for (const c of held) await c.waitFor(/^HTTP\/1\.1 200 [\s\S]*"received"/);
  await until('slots back after success', () => slotsOf(capped, 'user:alice') === 0, 3000);
  for (const c of held) c.sock.destroy();
  const file = await capped.request('GET', `/file/${f.id}`, { headers: alice });
  assert.is(file.json.received, CAP * CHUNK);
  // Exactly CAP again: nothing leaked.
  const again = await holdUploads(capped, f.id, CAP);
  await assertRefusedBeforeBody(capped, f.id);
  for (const c of again) c.sock.destroy();
  await until('slots back after the clients left', () => slotsOf(capped, 'user:alice') === 0, 3000);
});

test('no slot leaks: uploads that fail before or in the middle of their body, and clients that vanish mid-body, all give their slot back', async () => {
  const f = await newFile(capped, asUser('carol'), 2 * CHUNK);
  const carol = asUser('carol');
  const slots = () => slotsOf(capped, 'user:carol');
  // Failures before the body: offsets past the end, a declared size that disagrees; more than CAP of them.
  const early = await Promise.all(
    Array.from({ length: 2 * CAP }, (_, i) =>
      capped.request('PUT', `/file/${f.id}/chunk/${i % 2 ? 10 * CHUNK : 0}`, {
        headers: {
          ...carol,
          'content-type': 'application/octet-stream',
          ...(i % 2 ? {} : { 'X-Service-Chunk-Size': '5' }),
        },
        body: patternBytes('e', 100),
      }),
    ),
  );
  assert.ok(
    early.every((r) => r.status === 400 || r.status === 429),
    early.map((r) => r.status).join(),
  );
  // A failure in the middle of the body: a chunked body longer than the room left in the file.
  const mid = await Promise.all(Array.from({ length: CAP }, () => rawConnect(capped.server.port)));
  for (const c of mid) {
    const who = Object.entries(carol)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    c.write(`PUT /file/${f.id}/chunk/${CHUNK} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n${who}\r\n`);
    c.write(`${(CHUNK + 1).toString(16)}\r\n`);
    c.write(patternBytes('long', CHUNK + 1));
    c.write('\r\n0\r\n\r\n');
  }
  for (const c of mid) assert.match(await c.waitFor(/\r\n\r\n\{.*\}$/s), /^HTTP\/1\.1 (400|413) /);
  for (const c of mid) c.sock.destroy();
  await until('slots back after failures', () => slots() === 0, 3000);
  // Clients that go away with their body half sent.
  const gone = await Promise.all(Array.from({ length: CAP }, () => rawConnect(capped.server.port)));
  for (const c of gone) c.write(chunkHead(f.id, 0, CHUNK, carol) + 'x'.repeat(100));
  await until('uploads started', () => slots() === CAP, 3000);
  for (const c of gone) c.sock.destroy();
  await until('slots back after the clients vanished', () => slots() === 0, 3000);
  const file = await capped.request('GET', `/file/${f.id}`, { headers: carol });
  assert.equal([file.json.received, file.json.ranges], [0, []]);
  // And carol can upload her whole file with CAP chunks in flight.
  const ok = await sendChunks(capped.request, f.id, patternBytes('carol', 2 * CHUNK), CHUNK, {
    headers: carol,
    parallel: 2,
  });
  assert.equal(
    ok.map((r) => r.status),
    [200, 200],
  );
});

test.run();
