import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asUser, HEADER_SP, startTestServer, TestServer } from '../helpers/server';
import { signedPath } from '../helpers/signing';
import { patternBytes } from '../helpers/upload-client';
import { dbHash } from './fixture';

// Signatures, over real HTTP and the SQLite store of used signatures. Already covered elsewhere and
// not repeated here: a replayed signed POST of a remote application acting as a user and the ±window on GET
// (test/http/auth-remote.test.ts); the exact window bounds, replays of PUT/DELETE, forged signatures not being
// remembered and the store's sweep (test/unit/signature-auth.test.ts). Added here: the remote-user mode,
// replays changed in ways that keep the signature valid, parallel replays, memory across a restart and past
// the sweep, and a configured signature_max_future_s in both modes.
const T0 = 1_800_000_000;
let now = T0;
const clock = () => now;
let s: TestServer;
let host: string;
let secret: string;
let portal: string;
const JSONH = { 'content-type': 'application/json' };
const CONFIG = { ...HEADER_SP, upload_chunk_size: 1024 };
let cases = 0;

test.before(async () => {
  s = await startTestServer(CONFIG, { clock });
  host = new URL(s.url).host;
  portal = await s.app.services.accounts.addRemoteApp('portal', false);
  const cfg = (await s.request('GET', '/user', { headers: asUser('alice') })).json.remote_config as string;
  secret = cfg.split('|')[2];
});
test.after(async () => {
  console.log(`  signatures: ${cases} cases`);
  await s.close();
});

const transferBody = (name: string) =>
  JSON.stringify({
    files: [{ name, size: 10 }],
    recipients: ['r@example.org'],
    from: 'alice@example.org',
    expires: now + 7 * 86400,
  });
/** A request signed with alice's own secret (remote-user mode). */
const asAlice = (method: string, p: string, body?: string | Buffer, ts = now, h = host) =>
  signedPath({ method, host: h, path: p, args: { remote_user: 'alice', timestamp: ts }, secret, body });
const myTransfers = async () => (await s.request('GET', asAlice('GET', '/transfer/@me'))).json.length as number;

/** `skip`: tables a refused request may rightly change (the sweep of expired signatures runs on a signed POST). */
async function expectReplayRefused(
  label: string,
  send: () => Promise<{ status: number; json: any }>,
  details: string[] | null = ['replay'],
  skip: string[] = [],
) {
  const before = await dbHash(s, skip);
  const r = await send();
  assert.equal(
    [r.status, r.json?.message, r.json?.details],
    [401, 'auth_remote_signature_check_failed', details],
    label,
  );
  assert.is(await dbHash(s, skip), before, `${label} changed the database`);
  cases++;
}

test('remote-user mode: exact replays of a signed POST, chunk PUT and DELETE are refused and change nothing', async () => {
  const body = transferBody('a.txt');
  const post = asAlice('POST', '/transfer', body);
  const created = await s.request('POST', post, { body, headers: JSONH });
  assert.is(created.status, 201, created.text);
  await expectReplayRefused('POST', () => s.request('POST', post, { body, headers: JSONH }));
  const bytes = patternBytes('sig', 10);
  const chunk = asAlice('PUT', `/file/${created.json.files[0].id}/chunk/0`, bytes);
  assert.is((await s.request('PUT', chunk, { body: bytes })).status, 200);
  await expectReplayRefused('chunk PUT', () => s.request('PUT', chunk, { body: bytes }));
  const del = asAlice('DELETE', `/transfer/${created.json.id}`);
  assert.is((await s.request('DELETE', del)).status, 200);
  await expectReplayRefused('DELETE', () => s.request('DELETE', del));
});

test('a replay changed in ways that keep its signature valid is still a replay', async () => {
  now += 1;
  const body = transferBody('b.txt');
  const p = asAlice('POST', '/transfer', body);
  assert.is((await s.request('POST', p, { body, headers: JSONH })).status, 201);
  const count = await myTransfers();
  const [pathPart, query] = p.split('?');
  const args = query.split('&');
  const sig = args.find((a) => a.startsWith('signature='))!;
  const variants: Record<string, string> = {
    'signature in upper case': p.replace(sig, sig.toUpperCase().replace('SIGNATURE=', 'signature=')),
    'arguments in another order': `${pathPart}?${[...args].reverse().join('&')}`,
    'signature argument repeated': `${p}&${sig}`,
    'signature given first, then a junk one': `${pathPart}?${[sig, ...args.filter((a) => a !== sig), 'signature=00'].join('&')}`,
  };
  for (const [label, v] of Object.entries(variants))
    await expectReplayRefused(label, () => s.request('POST', v, { body, headers: JSONH }));
  // Signed for the Host without its port, which the server accepts too: the same signature either way.
  const portless = asAlice('POST', '/transfer', body, now, host.replace(/:\d+$/, ''));
  assert.is((await s.request('POST', portless, { body, headers: JSONH })).status, 201);
  await expectReplayRefused('Host without port', () => s.request('POST', portless, { body, headers: JSONH }));
  // Under /rest.php the path differs from the one signed: refused before any replay check.
  await expectReplayRefused(
    'through /rest.php',
    () => s.request('POST', `/rest.php${p}`, { body, headers: JSONH }),
    null,
  );
  assert.is(await myTransfers(), count + 1, 'only the portless original was added');
});

test('the same signed POST sent eight times at once: exactly one is taken', async () => {
  now += 1;
  const body = transferBody('c.txt');
  const p = signedPath({
    method: 'POST',
    host,
    path: '/transfer',
    args: { remote_application: 'portal', remote_user: 'alice', timestamp: now },
    secret: portal,
    body,
  });
  const before = await myTransfers();
  const answers = await Promise.all(Array.from({ length: 8 }, () => s.request('POST', p, { body, headers: JSONH })));
  assert.equal(answers.map((a) => a.status).sort(), [201, 401, 401, 401, 401, 401, 401, 401]);
  assert.is(await myTransfers(), before + 1);
  cases += 8;
});

test('a future-dated POST stays spent until its own window has passed, across the sweep and a restart', async () => {
  now += 1;
  const body = transferBody('d.txt');
  // Signed for the host without its port, so it still verifies on the restarted server's new port.
  const p = asAlice('POST', '/transfer', body, now + 3600, host.replace(/:\d+$/, ''));
  assert.is((await s.request('POST', p, { body, headers: JSONH })).status, 201);
  now += 120; // past the once-a-minute sweep of expired signatures
  await expectReplayRefused(
    'after the sweep',
    () => s.request('POST', p, { body, headers: JSONH }),
    ['replay'],
    ['used_signatures'],
  );
  // A restart on the same data: used signatures live in the database, not in memory.
  await s.server.close(1000);
  await s.app.close();
  const first = s.dir;
  s = await startTestServer({ ...CONFIG, data_dir: path.join(first, 'data') }, { clock });
  const second = s.dir;
  s.dir = first; // the last close removes the data of both
  fs.rmSync(second, { recursive: true, force: true });
  await expectReplayRefused('after a restart', () => s.request('POST', p, { body, headers: JSONH }));
  now += 3600 - 120 + 15; // the timestamp is now just max_age old: the request itself would still pass
  await expectReplayRefused('at the end of its window', () => s.request('POST', p, { body, headers: JSONH }));
  now += 1;
  const late = await s.request('POST', p, { body, headers: JSONH });
  assert.equal([late.status, late.json?.message], [401, 'auth_remote_too_late']);
  cases++;
});

test('timestamps ahead: up to signature_max_future_s accepted, one second more refused, in both modes, default and configured', async () => {
  const short = await startTestServer({ ...CONFIG, auth: { ...CONFIG.auth, signature_max_future_s: 60 } }, { clock });
  try {
    const shortApp = await short.app.services.accounts.addRemoteApp('portal', false);
    const shortSecret = (
      (await short.request('GET', '/user', { headers: asUser('alice') })).json.remote_config as string
    ).split('|')[2];
    const servers = [
      { srv: s, max: 86400, app: portal, user: secret },
      { srv: short, max: 60, app: shortApp, user: shortSecret },
    ];
    for (const { srv, max, app, user } of servers) {
      const h = new URL(srv.url).host;
      for (const mode of ['remote_user', 'remote_application'] as const) {
        const at = (ts: number) => {
          const args: Record<string, string | number> =
            mode === 'remote_user'
              ? { remote_user: 'alice', timestamp: ts }
              : { remote_application: 'portal', timestamp: ts };
          return srv.request(
            'GET',
            signedPath({ method: 'GET', host: h, path: '/echo', args, secret: mode === 'remote_user' ? user : app }),
          );
        };
        const label = `${mode}, max ${max} s`;
        assert.is((await at(now + max)).status, 200, `${label}: exactly max ahead`);
        const over = await at(now + max + 1);
        assert.equal([over.status, over.json?.message], [401, 'auth_remote_too_late'], `${label}: one second more`);
        cases += 2;
      }
    }
    // A POST dated as far ahead as allowed is spent for its whole window.
    const body = transferBody('e.txt');
    const p = signedPath({
      method: 'POST',
      host: new URL(short.url).host,
      path: '/transfer',
      args: { remote_user: 'alice', timestamp: now + 60 },
      secret: shortSecret,
      body,
    });
    assert.is((await short.request('POST', p, { body, headers: JSONH })).status, 201);
    now += 60 + 15;
    const replay = await short.request('POST', p, { body, headers: JSONH });
    assert.equal([replay.status, replay.json?.details], [401, ['replay']]);
    cases += 2;
  } finally {
    await short.close();
  }
});

test('a refused signed change is not spent: the identical request sent again in the same second works once the state allows it; an accepted one never twice', async () => {
  now += 1;
  // The server was restarted above, on another port.
  const at = new URL(s.url).host;
  const sign = (method: string, p: string, b?: string | Buffer) => asAlice(method, p, b, now, at);
  // CHUNK is 1024 here: a file of two chunks, the second not sent yet.
  const body = JSON.stringify({
    files: [{ name: 'two.bin', size: 2048 }],
    recipients: ['r@example.org'],
    from: 'alice@example.org',
    expires: now + 7 * 86400,
  });
  const created = await s.request('POST', sign('POST', '/transfer', body), { body, headers: JSONH });
  assert.is(created.status, 201, created.text);
  const f = created.json.files[0];
  const data = patternBytes('two', 2048);
  const first = data.subarray(0, 1024);
  assert.is((await s.request('PUT', sign('PUT', `/file/${f.id}/chunk/0`, first), { body: first })).status, 200);
  // The completion comes too early: 409, and it changed nothing.
  const complete = JSON.stringify({ complete: true });
  const p = sign('PUT', `/file/${f.id}`, complete);
  const early = await s.request('PUT', p, { body: complete, headers: JSONH });
  assert.equal([early.status, early.json.message], [409, 'file_incomplete']);
  // The missing chunk arrives; the very same completion (same timestamp, same signature), still in that second.
  const second = data.subarray(1024);
  assert.is((await s.request('PUT', sign('PUT', `/file/${f.id}/chunk/1024`, second), { body: second })).status, 200);
  const again = await s.request('PUT', p, { body: complete, headers: JSONH });
  assert.equal([again.status, again.json], [200, true], again.text);
  // Accepted once: from now on it is a replay.
  await expectReplayRefused('the accepted completion', () => s.request('PUT', p, { body: complete, headers: JSONH }));
  // The same for a POST refused 400: sent again unchanged it is refused again (not a replay), nothing added.
  const bad = JSON.stringify({
    files: [{ name: '../x', size: 1 }],
    recipients: ['r@example.org'],
    expires: now + 86400,
  });
  const badPath = sign('POST', '/transfer', bad);
  for (let i = 0; i < 2; i++) {
    const r = await s.request('POST', badPath, { body: bad, headers: JSONH });
    assert.equal([r.status, r.json.message, r.json.details], [400, 'rest_bad_parameter', ['files[0].name']]);
  }
  cases += 5;
});

test.run();
