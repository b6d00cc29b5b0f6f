import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import http from 'node:http';
import { startTestServer, HEADER_SP, asUser, TestServer, sql } from '../helpers/server';
import { sendChunks } from '../helpers/upload-client';

// One client-address rule everywhere (src/auth/client-address.ts): behind a reverse proxy in trusted_proxies
// the client it names in X-Forwarded-For is the one the link-password throttle counts and the audit log
// records, as for the login throttle; from any other peer those headers are ignored.

const alice = asUser('alice');
const PASSWORD = 'correct horse battery';
const HEADER = 'X-Ferry-Link-Password';

async function protectedLink(s: TestServer): Promise<{ id: number; token: string; fileId: number }> {
  const created = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'x.bin', size: 3 }], password: PASSWORD }),
  });
  assert.is(created.status, 201, created.text);
  const f = created.json.files[0];
  await sendChunks(s.request, f.id, Buffer.from('abc'), 5 * 1024 * 1024, { headers: alice });
  assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  const done = await s.request('PUT', `/transfer/${created.json.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  return { id: done.json.id, token: done.json.recipients[0].token, fileId: f.id };
}

/** A GET from a chosen loopback address (any 127.x reaches the server), with headers a proxy would add. */
function getFrom(
  s: TestServer,
  localAddress: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(`${s.url}${path}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        localAddress,
        headers,
        timeout: 30_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

test('behind the same-host proxy: 20 wrong tries from rotating clients lock neither other clients nor other links', async () => {
  const s = await startTestServer({ ...HEADER_SP });
  try {
    const links = [];
    for (let i = 0; i < 5; i++) links.push(await protectedLink(s));
    const via = (client: string, token: string, password: string) =>
      getFrom(s, '127.0.0.1', `/download/files?token=${token}`, { [HEADER]: password, 'X-Forwarded-For': client });
    // Four links, five wrong tries each, each from its own forwarded client: every one is counted as it.
    for (let l = 0; l < 4; l++)
      for (let i = 0; i < 5; i++)
        assert.is((await via(`198.51.100.${10 * l + i}`, links[l].token, `wrong ${i}`)).status, 401);
    const fresh = await via('203.0.113.9', links[4].token, PASSWORD);
    assert.is(fresh.status, 200, `a new client opens the fifth link: ${fresh.body}`);
    // The one address that guessed five times at one link waits for that link; the same link opens for others.
    for (let i = 0; i < 5; i++) assert.is((await via('198.51.100.77', links[0].token, `again ${i}`)).status, 401);
    const held = await via('198.51.100.77', links[0].token, PASSWORD);
    assert.is(held.status, 429);
    assert.ok(Number(held.headers['retry-after']) > 800, 'Retry-After says how long');
    assert.is((await via('198.51.100.78', links[0].token, PASSWORD)).status, 200);
    // The audit log names the forwarded client of a download, not the proxy.
    const file = await getFrom(s, '127.0.0.1', `/download?token=${links[4].token}&files_ids=${links[4].fileId}`, {
      [HEADER]: PASSWORD,
      'X-Forwarded-For': '10.9.9.9, 203.0.113.50',
    });
    assert.is(file.status, 200);
    const rows = await sql(
      s,
      "SELECT author_ip FROM audit_log WHERE transfer_id = ? AND event LIKE 'download%'",
      links[4].id,
    );
    assert.ok(rows.length > 0);
    for (const r of rows) assert.is(r.author_ip, '203.0.113.50');
  } finally {
    await s.close();
  }
});

test('trusted_proxies: only a listed peer names the client; any other peer is counted as itself', async () => {
  // 127.0.0.2 plays the proxy; 127.0.0.1 is a client reaching ferry directly and sending the header itself.
  const s = await startTestServer({ ...HEADER_SP, trusted_proxies: ['127.0.0.2'] });
  try {
    const link = await protectedLink(s);
    const from = (peer: string, client: string, password: string) =>
      getFrom(s, peer, `/download/files?token=${link.token}`, { [HEADER]: password, 'X-Forwarded-For': client });
    // The direct client makes up a new address for every try: it is counted as 127.0.0.1 all the same.
    for (let i = 0; i < 5; i++) assert.is((await from('127.0.0.1', `192.0.2.${i}`, `wrong ${i}`)).status, 401);
    assert.is((await from('127.0.0.1', '192.0.2.200', PASSWORD)).status, 429, 'spoofed X-Forwarded-For is ignored');
    // Through the proxy, a client is its forwarded address: neither locked by the spoofer nor able to spoof
    // through a chain (the proxy's own, last entry counts).
    assert.is((await from('127.0.0.2', '127.0.0.1', PASSWORD)).status, 429, 'the direct client, forwarded');
    assert.is((await from('127.0.0.2', '127.0.0.1, 192.0.2.201', PASSWORD)).status, 200);
    const rows = await sql(s, "SELECT key FROM login_failures WHERE key LIKE 'user:link:%'");
    assert.ok(rows.length >= 5);
    for (const r of rows) assert.match(r.key, /:127\.0\.0\.1$/, r.key);
  } finally {
    await s.close();
  }
});

test('config: trusted_proxies takes addresses and CIDR ranges, and refuses anything else', async () => {
  let err: Error | undefined;
  try {
    const s = await startTestServer({ trusted_proxies: ['10.0.0.0/8', 'proxy.example.org'] });
    await s.close();
  } catch (e) {
    err = e as Error;
  }
  assert.ok(err, 'a host name is refused');
  assert.match(String(err), /trusted_proxies\[1\]/);
});

test.run();
