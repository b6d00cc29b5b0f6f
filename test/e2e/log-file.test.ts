import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { startBinary } from '../helpers/binary';
import { request, tempDir } from '../helpers/server';

async function waitFor(file: string, text: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const got = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (got.includes(text) || Date.now() > deadline) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('serve with log.file: SIGHUP after logrotate moved the file reopens it, and the server keeps serving', async () => {
  const dir = tempDir('ferry-e2e-');
  const file = path.join(dir, 'logs', 'ferry.log');
  const s = await startBinary({ dir, config: { log: { format: 'json', file } } });
  try {
    await request(s.url, 'GET', '/healthz?before');
    assert.ok((await waitFor(file, '/healthz?before')).includes('"route":"/healthz"'));
    fs.renameSync(file, `${file}.1`);
    s.proc.kill('SIGHUP');
    assert.ok((await waitFor(file, 'SIGHUP: reopened')).includes('SIGHUP: reopened'), 'a new file after SIGHUP');
    const r = await request(s.url, 'GET', '/healthz?after');
    assert.is(r.status, 200);
    assert.equal(r.json, { status: 'ok' });
    const fresh = await waitFor(file, '/healthz?after');
    assert.ok(fresh.includes('/healthz?after'));
    assert.not.ok(fresh.includes('/healthz?before'));
    assert.not.ok(fs.readFileSync(`${file}.1`, 'utf8').includes('/healthz?after'));
    for (const line of fresh.trim().split('\n')) JSON.parse(line);
    assert.is(s.proc.exitCode, null, 'SIGHUP does not stop the server');
    assert.is(await s.stop(), 0);
  } finally {
    await s.kill9();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
