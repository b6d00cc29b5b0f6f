import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { BINARY, runFerry, startBinary, waitForExit } from '../helpers/binary';
import { tempDir } from '../helpers/server';

test('the binary alone in an empty directory serves /info and /echo on its defaults', async () => {
  const dir = tempDir('ferry-alone-');
  const copy = path.join(dir, 'ferry');
  fs.copyFileSync(BINARY, copy);
  fs.chmodSync(copy, 0o755);
  const { spawn } = await import('node:child_process');
  const proc = spawn(copy, ['serve', '--port', '0'], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin', HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
    // No base_url in the config: links follow the port actually listened on.
    assert.is(info.url, `http://localhost:${new URL(url).port}`);
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

test('version prints the version, without a warning, in well under 0.5 s', () => {
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const started = process.hrtime.bigint();
    const r = runFerry(['version']);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
    assert.is(r.code, 0);
    assert.is(
      r.stdout,
      `ferry ${JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')).version}\n`,
    );
    assert.is(r.stderr, '');
  }
  // About 1.3x `node -e 0` on a quiet machine (~75 ms); the bound leaves room for a busy CI host.
  assert.ok(best < 500, `best of 5 runs took ${best.toFixed(0)} ms`);
});

test('concurrent first starts on one data directory share one extracted SQLite addon', async () => {
  const dir = tempDir('ferry-concurrent-');
  const config = { data_dir: path.join(dir, 'data') };
  const env = { XDG_CACHE_HOME: '' }; // the addon goes to <data_dir>/.native, shared by both
  const servers = await Promise.all(
    [0, 1, 2].map(() => startBinary({ dir: fs.mkdtempSync(path.join(dir, 'run-')), config, env })),
  );
  try {
    for (const s of servers) {
      const r = await fetch(`${s.url}/info`);
      assert.is(r.status, 200, s.output());
    }
  } finally {
    for (const s of servers) assert.is(await s.stop(), 0, s.output());
  }
  const native = fs.readdirSync(path.join(dir, 'data', '.native'));
  assert.equal(native.length, 1, native.join(', '));
  assert.match(native[0], /^better_sqlite3-[0-9a-f]{16}\.node$/);
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
  assert.is(r.stdout, '');
  assert.match(r.stderr, /unknown command 'frobnicate'/);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
});

test('SIGTERM while a request is in flight: the request gets its answer, then the server exits 0', async () => {
  const s = await startBinary();
  const body = JSON.stringify({ hello: 'world', pad: 'x'.repeat(1000) });
  const half = Math.floor(body.length / 2);
  const { port, hostname } = new URL(s.url);
  const req = http.request({
    host: hostname,
    port,
    method: 'POST',
    path: '/echo/inflight',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
  });
  await new Promise<void>((r) => req.write(body.slice(0, half), () => r()));
  await new Promise((r) => setTimeout(r, 200)); // the server has the request and waits for the rest of the body
  s.proc.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  assert.is(s.proc.exitCode, null, 'the server waits for the request in flight');
  req.end(body.slice(half));
  const got = await answer;
  assert.is(got.status, 200, got.body);
  const echoed = JSON.parse(got.body);
  assert.equal(echoed.args, ['inflight']);
  assert.equal(echoed.request, JSON.parse(body));
  // Bounded by the server's grace period (an idle keep-alive socket may hold it a few seconds).
  assert.is(await waitForExit(s.proc, 15_000), 0, s.output());
  assert.match(s.output(), /SIGTERM received/);
  await s.stop();
});

test('SIGTERM on an idle server exits 0; the database is in WAL mode', async () => {
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
