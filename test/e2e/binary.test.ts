import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY, runFerry, startBinary } from '../helpers/binary';
import { tempDir } from '../helpers/server';

test('the binary alone in an empty directory serves /info and /echo on its defaults', async () => {
  const dir = tempDir('ferry-alone-');
  const copy = path.join(dir, 'ferry');
  fs.copyFileSync(BINARY, copy);
  fs.chmodSync(copy, 0o755);
  const { spawn } = await import('node:child_process');
  const proc = spawn(copy, ['serve', '--port', '0'], { cwd: dir, env: { PATH: '/usr/bin:/bin', HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(out)), 15_000);
      proc.stdout.on('data', () => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(m[1]);
        }
      });
    });
    const info = await (await fetch(`${url}/info`)).json();
    assert.is(info.url, 'http://localhost:8080');
    assert.is(info.upload_chunk_size, 5242880);
    const echo = await (await fetch(`${url}/rest.php/echo/one`)).json();
    assert.equal(echo.args, ['one']);
    assert.ok(fs.existsSync(path.join(dir, 'data', 'ferry.db')), 'database under ./data');
    assert.not.match(out, /ExperimentalWarning|single executable/i);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
});

test('version prints the version, quickly and without a warning', () => {
  const started = process.hrtime.bigint();
  const r = runFerry(['version']);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.is(r.code, 0);
  assert.match(r.stdout, /^ferry \d+\.\d+\.\d+/);
  assert.is(r.stderr, '');
  assert.ok(ms < 2000, `took ${ms} ms`);
});

test('config check: every problem of a bad file at once, exit 1; a good file, exit 0', () => {
  const dir = tempDir();
  const bad = path.join(dir, 'bad.json');
  fs.writeFileSync(bad, JSON.stringify({ listen: { port: 'x' }, upload_chunk_size: 0, nonsense: true }));
  const r = runFerry(['config', 'check', '-c', bad]);
  assert.is(r.code, 1);
  for (const p of ['listen.port', 'upload_chunk_size', 'nonsense']) assert.match(r.stderr, p);
  const good = path.join(dir, 'good.json');
  fs.writeFileSync(good, JSON.stringify({ base_url: 'https://files.example.org' }));
  const ok = runFerry(['config', 'check', '-c', good]);
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /config ok/);
  const env = runFerry(['config', 'check'], { env: { FERRY_CONFIG: bad } });
  assert.is(env.code, 1);
});

test('an unknown command exits 1 with a one-line message', () => {
  const r = runFerry(['frobnicate']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /unknown command/);
  assert.is(r.stderr.trim().split('\n').length <= 2, true);
});

test('SIGTERM stops the server cleanly; the database is in WAL mode', async () => {
  const s = await startBinary();
  const r = await fetch(`${s.url}/info`);
  assert.is(r.status, 200);
  const code = await s.stop();
  assert.is(code, 0, s.output());
  const db = fs.readFileSync(path.join(s.dir, 'data', 'ferry.db'));
  // SQLite header bytes 18 and 19 are 2 when the database uses WAL.
  assert.is(db[18], 2);
  assert.is(db[19], 2);
});

test.run();
