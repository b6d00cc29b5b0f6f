import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import path from 'node:path';
import { HEADER_SP, asUser, request, tempDir, testDatabaseUrl } from '../helpers/server';
import { startServe } from '../../src/cli/serve';
import { writeConfig } from '../helpers/config-file';
import { firstSinkMessage } from '../helpers/mail';
import { runCli } from '../../src/cli/program';

const quietIO = (out: string[]) => ({
  out: (t: string) => out.push(t),
  err: (t: string) => out.push(t),
  readStdin: async () => '',
});

test('serve on an address already in use says which one and how to choose another, with exit 1, keeping the first password for the start that works', async () => {
  const taken = net.createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  const port = (taken.address() as net.AddressInfo).port;
  const dir = tempDir();
  const file = writeConfig(dir, {
    listen: { host: '127.0.0.1', port },
    auth: { sp: { type: 'local' } },
    database_url: await testDatabaseUrl(),
  });
  const out: string[] = [];
  try {
    const code = await runCli(['serve', '-c', file], quietIO(out));
    assert.is(code, 1, out.join('\n'));
    const last = out[out.length - 1];
    assert.match(last, `127.0.0.1:${port} is already in use`);
    assert.match(last, '--port N');
    assert.match(last, '"listen"');
    assert.not.match(out.join('\n'), /internal error|EADDRINUSE/);
    assert.not.match(out.join('\n'), 'created the first account');
    const again: string[] = [];
    const handle = await startServe({ config: file, port: '0' }, quietIO(again));
    await handle.stop();
    assert.match(again.join('\n'), /created the first account: user "admin", password \S+/);
  } finally {
    await new Promise((r) => taken.close(r));
  }
});

test('without base_url, links (/info url, mails) name the port actually listened on', async () => {
  const dir = tempDir();
  const box = path.join(dir, 'mail-box');
  const file = writeConfig(dir, {
    ...HEADER_SP,
    listen: { host: '127.0.0.1', port: 8080 },
    mail: { sink: { port: 0, dir: box } },
    database_url: await testDatabaseUrl(),
  });
  const handle = await startServe({ config: file, port: '0' }, quietIO([]));
  try {
    const port = new URL(handle.url).port;
    assert.is.not(port, '8080');
    const info = (await request(handle.url, 'GET', '/info')).json;
    assert.is(info.url, `http://localhost:${port}`);
    const r = await request(handle.url, 'POST', '/guest', {
      headers: asUser('alice'),
      json: { recipient: 'g@example.org', from: 'alice@example.org' },
    });
    assert.is(r.status, 201, r.text);
    const m = await firstSinkMessage(box, 'the invitation in the sink');
    assert.match(m.text!, `http://localhost:${port}/?s=upload&vid=${r.json.token}`);
  } finally {
    await handle.stop();
  }
});

test('a base_url set in the config is kept whatever the port', async () => {
  const dir = tempDir();
  const file = writeConfig(dir, { base_url: 'https://files.example.org', database_url: await testDatabaseUrl() });
  const handle = await startServe({ config: file, port: '0' }, quietIO([]));
  try {
    assert.is((await request(handle.url, 'GET', '/info')).json.url, 'https://files.example.org');
  } finally {
    await handle.stop();
  }
});

test.run();
