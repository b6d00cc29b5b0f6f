import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import fs from 'node:fs';
import path from 'node:path';
import { writeConfig } from '../helpers/config-file';
import { startServe, ServeHandle } from '../../src/cli/serve';
import { asUser, request, tempDir } from '../helpers/server';
import { signedPath, nowS } from '../helpers/signing';

const SP = {
  type: 'header',
  uid_header: 'X-Remote-User',
  email_header: 'X-Remote-Email',
  trusted_proxies: ['127.0.0.1'],
};
const quiet = { out: () => {}, err: () => {}, readStdin: async () => '' };

/** `serve` from a config file whose log goes to a file, as an admin would set it. */
async function serveLogging(log: Record<string, unknown>): Promise<{ h: ServeHandle; file: string; dir: string }> {
  const dir = tempDir();
  const file = path.join(dir, 'log', 'ferry.log');
  const config = writeConfig(dir, { mail: { transport: null }, auth: { sp: SP }, log: { file, ...log } });
  const h = await startServe({ config, port: '0', host: '127.0.0.1' }, quiet);
  return { h, file, dir };
}

/** The log's lines once the server has written them (request lines go out after their answer). */
async function logLines(file: string, until: (lines: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    if (until(lines) || Date.now() > deadline) return lines;
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('log.format json: one object per line with time, level, request id, method, route, status, ms, user and bytes; never a secret', async () => {
  const { h, file, dir } = await serveLogging({ format: 'json' });
  try {
    const alice = asUser('alice');
    const me = await request(h.url, 'GET', '/user', { headers: alice });
    const secret = (me.json.remote_config as string).split('|')[2];
    const t = await request(h.url, 'POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name: 'a.txt', size: 5 }], recipients: ['bob@example.org'] }),
    });
    const fileId = t.json.files[0].id;
    const recipientToken = t.json.recipients[0].token;
    const host = new URL(h.url).host;
    const signed = signedPath({
      method: 'PUT',
      host,
      path: `/file/${fileId}/chunk/0`,
      args: { remote_user: 'alice', timestamp: nowS() },
      secret,
      body: 'hello',
    });
    const chunk = await request(h.url, 'PUT', signed, {
      body: 'hello',
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.is(chunk.status, 200, chunk.text);
    const signature = /signature=([0-9a-f]+)/.exec(signed)![1];
    const refused = await request(h.url, 'GET', `/download?token=${recipientToken}`);
    assert.is(refused.status, 404, refused.text); // not available yet: as unknown

    const lines = await logLines(file, (l) => l.some((x) => x.includes('"/download"')));
    const entries = lines.map((l) => JSON.parse(l)); // every line is JSON
    for (const e of entries) {
      assert.ok(!Number.isNaN(Date.parse(e.time)), e.time);
      assert.ok(['info', 'error'].includes(e.level));
      assert.type(e.msg, 'string');
    }
    const requests = entries.filter((e) => e.msg === 'request');
    const put = requests.find((e) => e.method === 'PUT');
    assert.ok(put, lines.join('\n'));
    assert.is(put.route, '/file/:id/chunk/:offset');
    assert.is(put.status, 200);
    assert.is(put.user, 'alice');
    assert.type(put.ms, 'number');
    assert.ok(put.bytes > 0 && put.bytes_in > 5, JSON.stringify(put));
    assert.match(put.id, /^[0-9a-f]{16}$/);
    assert.is(
      put.path,
      `/file/${fileId}/chunk/0?remote_user=alice&timestamp=${/timestamp=(\d+)/.exec(signed)![1]}&signature=***`,
    );
    const post = requests.find((e) => e.method === 'POST');
    assert.is(post.route, '/transfer');
    assert.is(post.status, 201);
    // The refused download: its request line and its "refused" line share the id the client got as uid.
    const dl = requests.find((e) => e.route === '/download');
    assert.is(dl.id, refused.json.uid);
    assert.is(refused.headers.get('x-request-id'), refused.json.uid);
    assert.is(dl.user, null);
    assert.is(dl.path, '/download?token=***');
    const why = entries.find((e) => e.msg.startsWith('refused') && e.id === refused.json.uid);
    assert.is(why.error, 'transfer_not_found');
    const text = fs.readFileSync(file, 'utf8');
    for (const s of [secret, signature, recipientToken]) assert.not.ok(text.includes(s), 'a secret reached the log');
  } finally {
    await h.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the default stays the readable line; log.file is created 0640, and reopened (after logrotate moved it) on request', async () => {
  const { h, file, dir } = await serveLogging({});
  try {
    await request(h.url, 'GET', '/info');
    const lines = await logLines(file, (l) => l.some((x) => x.includes('GET /info')));
    assert.ok(
      lines.some((l) => /^\d{4}-\d\d-\d\dT[\d:.]+Z GET \/info 200 \d+\.\dms$/.test(l)),
      lines.join('\n'),
    );
    assert.ok(lines.some((l) => / listening on http:/.test(l)));
    assert.is(fs.statSync(file).mode & 0o777, 0o640);
    // What logrotate does: move the file away, then tell the server (SIGHUP does this in `serve`).
    fs.renameSync(file, `${file}.1`);
    h.reopenLog();
    await request(h.url, 'GET', '/healthz');
    const fresh = await logLines(file, (l) => l.some((x) => x.includes('GET /healthz')));
    assert.ok(fresh.some((l) => l.includes('SIGHUP: reopened')));
    assert.ok(fresh.some((l) => l.includes('GET /healthz 200')));
    assert.not.ok(fs.readFileSync(`${file}.1`, 'utf8').includes('/healthz'));
  } finally {
    await h.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('log.format and log.file are checked like every key', async () => {
  const { checkConfig } = await import('../../src/config/validate');
  assert.equal(checkConfig({ log: { format: 'xml' } }), ['log.format: must be one of "text", "json", got "xml"']);
  assert.equal(checkConfig({ log: { file: '' } }), ['log.file: a file path, got ""']);
  assert.equal(checkConfig({ log: { format: 'json', file: null } }), []);
});

test.run();
