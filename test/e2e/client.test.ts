import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BINARY } from '../helpers/binary';
import { clientWorld, ClientWorld, Run, runFerry } from '../helpers/client-world';
import { chunkPuts } from '../helpers/request-log';
import { until } from '../helpers/until';
import { asUser } from '../helpers/server';
import { startCuttingProxy } from '../helpers/cutting-proxy';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const CHUNK = 5 * MiB;

type World = ClientWorld;
const world = () => clientWorld('ferry-client-');
const ferry = runFerry;

/** Writes `size` reproducible bytes (an AES-CTR keystream) and returns their SHA-256. */
function writePattern(file: string, size: number, seed: string): string {
  const cipher = crypto.createCipheriv(
    'aes-128-ctr',
    crypto.createHash('sha256').update(seed).digest().subarray(0, 16),
    Buffer.alloc(16),
  );
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'w');
  const zeros = Buffer.alloc(8 * MiB);
  for (let done = 0; done < size; ) {
    const n = Math.min(zeros.length, size - done);
    const piece = cipher.update(zeros.subarray(0, n));
    fs.writeSync(fd, piece);
    hash.update(piece);
    done += n;
  }
  fs.closeSync(fd);
  return hash.digest('hex');
}

async function sha256File(file: string): Promise<string> {
  const h = crypto.createHash('sha256');
  for await (const c of fs.createReadStream(file)) h.update(c as Buffer);
  return h.digest('hex');
}

async function linkOf(w: World, transferId: number): Promise<string> {
  const t = await w.srv.request('GET', `/transfer/${transferId}`, { headers: asUser('alice') });
  assert.is(t.status, 200, t.text);
  return t.json.recipients[0].download_url;
}

test('login keeps the profile string in $XDG_CONFIG_HOME/ferry/client.json, mode 0600; a wrong one is refused', async () => {
  const w = await world();
  try {
    const r = await ferry(w, ['login', w.remoteConfig]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /logged in to http:\/\/127\.0\.0\.1:\d+ as alice/);
    const file = path.join(w.home, 'config', 'ferry', 'client.json');
    assert.is(fs.statSync(file).mode & 0o777, 0o600);
    assert.is(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.is(JSON.parse(fs.readFileSync(file, 'utf8')).user, 'alice');
    // A wrong secret is found out at login, not at night in cron; nothing is saved then.
    const wrong = w.remoteConfig.replace(/\|[0-9a-f]+$/, `|${'0'.repeat(64)}`);
    fs.rmSync(file);
    const bad = await ferry(w, ['login', wrong]);
    assert.is(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /auth_remote_signature_check_failed/);
    assert.not.ok(fs.existsSync(file));
    const garbage = await ferry(w, ['login', 'hello']);
    assert.is(garbage.code, 1);
    assert.is(garbage.stderr.trim().split('\n').length, 1);
    // From standard input, so the secret stays out of the shell's history.
    const p = spawn(BINARY, ['login', '-'], { env: w.env, stdio: ['pipe', 'pipe', 'pipe'] });
    p.stdin!.end(`${w.remoteConfig}\n`);
    assert.is(await new Promise((resolve) => p.on('close', resolve)), 0);
    assert.is(fs.statSync(file).mode & 0o777, 0o600);
  } finally {
    await w.close();
  }
});

test('send 1 GiB, SIGKILL the client halfway, run it again: resumed with at most 4 chunks resent, never a completed one; get gives it back byte-identical', async () => {
  const w = await world();
  try {
    assert.is((await ferry(w, ['login', w.remoteConfig])).code, 0);
    const src = path.join(w.home, 'big.bin');
    const expected = writePattern(src, GiB, 'kill-and-resume');
    const chunks = Math.ceil(GiB / CHUNK);
    const args = ['send', 'big.bin', '-r', 'bob@example.org', '-s', 'nightly', '--json'];
    const ok = () => chunkPuts(w.lines).filter((c) => c.status === 200).length;
    let proc: ReturnType<typeof spawn> | null = null;
    const first = ferry(w, args, { onStart: (p) => (proc = p) });
    await until('half of the chunks', () => ok() >= chunks / 2, 600_000);
    proc!.kill('SIGKILL');
    const killed = await first;
    assert.is(killed.signal, 'SIGKILL');
    // Requests cut by the kill are logged as their sockets close.
    await new Promise((r) => setTimeout(r, 1500));
    const split = w.lines.length;
    const run1 = chunkPuts(w.lines.slice(0, split));
    const stored1 = new Set(run1.filter((c) => c.status === 200).map((c) => c.offset));
    const tried1 = new Set(run1.map((c) => c.offset));

    const started = Date.now();
    const second = await ferry(w, args);
    const seconds = (Date.now() - started) / 1000;
    assert.is(second.code, 0, second.stderr);
    const result = JSON.parse(second.stdout);
    assert.is(result.resumed, true);
    assert.is(result.status, 'available');
    const run2 = chunkPuts(w.lines.slice(split));
    const sent2 = new Set(run2.map((c) => c.offset));
    const resentCompleted = [...sent2].filter((o) => stored1.has(o));
    const resent = [...sent2].filter((o) => tried1.has(o));
    assert.equal(resentCompleted, [], 'no chunk the server had stored was sent again');
    assert.ok(resent.length <= 4, `${resent.length} chunks resent: ${resent}`);
    assert.is(new Set([...stored1, ...run2.filter((c) => c.status === 200).map((c) => c.offset)]).size, chunks);
    assert.is(result.chunks_sent, run2.filter((c) => c.status === 200).length);
    console.log(
      `  1 GiB: ${stored1.size} chunks before the kill, ${result.chunks_sent} after (${resent.length} resent), second run ${(result.bytes_sent / MiB / seconds).toFixed(0)} MiB/s`,
    );

    const out = path.join(w.home, 'out');
    const got = await ferry(w, ['get', await linkOf(w, result.transfer_id), '-o', out]);
    assert.is(got.code, 0, got.stderr);
    assert.is(await sha256File(path.join(out, 'big.bin')), expected);
  } finally {
    await w.close();
  }
});

test('cron: no terminal, no standard input, credentials from the environment: sends the nightly files, one line per file', async () => {
  const w = await world();
  try {
    const [url, user, secret] = w.remoteConfig.split('|');
    const dir = path.join(w.home, 'nightly');
    fs.mkdirSync(dir);
    const names = ['db.sql.gz', 'photos.tar', 'notes.txt'];
    names.forEach((n, i) => writePattern(path.join(dir, n), (i + 1) * 3 * MiB + i, n));
    const r = await ferry(
      w,
      ['send', ...names.map((n) => path.join(dir, n)), '-r', 'backup@example.org', '-s', 'nightly'],
      {
        noStdin: true,
        env: { FERRY_URL: url, FERRY_USER: user, FERRY_SECRET: secret },
      },
    );
    assert.is(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(
      lines
        .filter((l) => l.startsWith('sent '))
        .map((l) => l.split(' ')[1])
        .sort(),
      [...names].sort(),
    );
    assert.match(lines[lines.length - 1], /^transfer \d+ sent to backup@example\.org: 3 files, /);
    assert.is(lines.length, names.length + 1);
    assert.not.ok(/[\r\x1b]/.test(r.stdout + r.stderr), 'no bar or escape codes without a terminal');
    const t = await w.srv.request('GET', '/transfer', { headers: asUser('alice') });
    assert.is(t.json[0].status, 'available');
  } finally {
    await w.close();
  }
});

test('on a terminal: a progress bar with rate and ETA', async () => {
  const w = await world();
  try {
    assert.is((await ferry(w, ['login', w.remoteConfig])).code, 0);
    writePattern(path.join(w.home, 'a.bin'), 24 * MiB, 'tty');
    // script(1) gives the command a pseudo-terminal.
    const r = await new Promise<Run>((resolve) => {
      const p = spawn('script', ['-qec', `${BINARY} send a.bin -r bob@example.org`, '/dev/null'], {
        cwd: w.home,
        env: w.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      p.stdout!.on('data', (d) => (stdout += d));
      p.on('close', (code, signal) => resolve({ code, signal, stdout, stderr: '' }));
    });
    assert.is(r.code, 0, r.stdout);
    assert.match(r.stdout, /\r\x1b\[K\[#+\.*\] +\d+%  [\d.]+ MiB \/ 24\.0 MiB  [\d.]+ (B|KiB|MiB)\/s  ETA \d+:\d\d/);
    assert.match(r.stdout, /\[#{20}\] 100%/);
  } finally {
    await w.close();
  }
});

test('folders keep their tree as names (photos/2026/a.jpg) and come back as a tree; --link prints a link', async () => {
  const w = await world();
  try {
    assert.is((await ferry(w, ['login', w.remoteConfig])).code, 0);
    const tree = path.join(w.home, 'photos');
    fs.mkdirSync(path.join(tree, '2026'), { recursive: true });
    const sums = new Map<string, string>();
    for (const [rel, size] of [
      ['2026/a.jpg', 6 * MiB],
      ['2026/b.jpg', 1000],
      ['top.txt', 0],
    ] as const) {
      sums.set(`photos/${rel}`, writePattern(path.join(tree, rel), size, rel));
    }
    const r = await ferry(w, ['send', 'photos', '--link', '--json']);
    assert.is(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.files.map((f: { name: string }) => f.name).sort(), [...sums.keys()].sort());
    assert.match(result.link, /\/\?s=download&token=[0-9a-f]+$/);
    const out = path.join(w.home, 'received');
    const got = await ferry(w, ['get', result.link, '-o', out, '--json']);
    assert.is(got.code, 0, got.stderr);
    for (const [name, sum] of sums) assert.is(await sha256File(path.join(out, ...name.split('/'))), sum, name);
    // Run again: everything is there already and checked, nothing is downloaded twice.
    const again = await ferry(w, ['get', result.link, '-o', out]);
    assert.is(again.code, 0, again.stderr);
    assert.is(again.stdout.split('\n').filter((l) => l.startsWith('already there ')).length, 3);
  } finally {
    await w.close();
  }
});

test('get resumes a partial download with Range, and a partial file that does not match is caught by the SHA-256', async () => {
  const w = await world();
  try {
    assert.is((await ferry(w, ['login', w.remoteConfig])).code, 0);
    const src = path.join(w.home, 'data.bin');
    const sum = writePattern(src, 12 * MiB + 7, 'partial');
    const sent = JSON.parse((await ferry(w, ['send', 'data.bin', '--link', '--json'])).stdout);
    const bytes = fs.readFileSync(src);

    const out = path.join(w.home, 'out');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'data.bin.part'), bytes.subarray(0, 5 * MiB + 3));
    const before = w.lines.length;
    const r = await ferry(w, ['get', sent.link, '-o', out]);
    assert.is(r.code, 0, r.stderr);
    assert.is(await sha256File(path.join(out, 'data.bin')), sum);
    assert.not.ok(fs.existsSync(path.join(out, 'data.bin.part')));
    assert.ok(
      w.lines.slice(before).some((l) => /^GET \/download\?token=\*\*\*&files_ids=\d+ 206 /.test(l)),
      'a 206 answer to the Range request',
    );

    // A partial file with a wrong byte in it: the download completes from where it stops, and the check fails.
    const bad = Buffer.from(bytes.subarray(0, 4 * MiB));
    bad[1000] ^= 0xff;
    const out2 = path.join(w.home, 'out2');
    fs.mkdirSync(out2);
    fs.writeFileSync(path.join(out2, 'data.bin.part'), bad);
    const m = await ferry(w, ['get', sent.link, '-o', out2]);
    assert.is(m.code, 2, m.stderr);
    assert.match(m.stderr, /SHA-256 mismatch/);
    assert.not.ok(fs.existsSync(path.join(out2, 'data.bin')), 'a file that does not match is not kept');
    assert.not.ok(fs.existsSync(path.join(out2, 'data.bin.part')));
    // And the next run downloads it anew, whole and right.
    assert.is((await ferry(w, ['get', sent.link, '-o', out2])).code, 0);
    assert.is(await sha256File(path.join(out2, 'data.bin')), sum);
  } finally {
    await w.close();
  }
});

test('get never writes outside -o: hostile names land inside it, a planted link is refused', async () => {
  // ferry itself refuses such names at upload, so a hostile server (or one of another make) serves them: the
  // client must not trust names from any server.
  const w = await world();
  const names = ['../../escaped.txt', '/etc/absolute.txt', 'a/../../up.txt'];
  const sum = crypto.createHash('sha256').update('abc').digest('hex');
  const hostile = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/info') {
      // Says it is ferry (its /info names a version), as the client reads it before the link.
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ url: 'http://x/', version: '0.1.0', upload_chunk_size: 5242880 }));
    } else if (url.pathname === '/download/files') {
      const files = names.map((name, i) => ({ id: i + 1, name, size: 3, mime_type: 'text/plain', sha256: sum }));
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ transfer_id: 1, subject: '', message: '', from: 'mallory@example.org', expires: null, files }),
      );
    } else if (url.pathname === '/transfer/fileidsextended') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(names.map((name, i) => ({ id: i + 1, name, size: 3, encrypted: false }))));
    } else if (url.pathname === '/download') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '3', 'accept-ranges': 'bytes' });
      res.end('abc');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  try {
    const link = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/?s=download&token=${'t'.repeat(32)}`;
    const base = path.join(w.home, 'jail');
    const out = path.join(base, 'out');
    const r = await ferry(w, ['get', link, '-o', out]);
    assert.is(r.code, 0, r.stderr);
    const found: string[] = [];
    const walk = (d: string) =>
      fs
        .readdirSync(d, { withFileTypes: true })
        .forEach((e) =>
          e.isDirectory() ? walk(path.join(d, e.name)) : found.push(path.relative(base, path.join(d, e.name))),
        );
    walk(base);
    assert.equal(found.sort(), ['out/a/up.txt', 'out/escaped.txt', 'out/etc/absolute.txt']);

    // A folder on the way that is a symbolic link (to anywhere) is not written through.
    const out2 = path.join(w.home, 'out2');
    fs.mkdirSync(out2);
    fs.symlinkSync(w.home, path.join(out2, 'a'));
    const refused = await ferry(w, ['get', link, '-o', out2]);
    assert.is(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /symbolic link/);
    assert.not.ok(fs.existsSync(path.join(w.home, 'up.txt')));
  } finally {
    hostile.close();
    await w.close();
  }
});

test('the network drops during a send: the client waits, carries on, and the file arrives whole', async () => {
  const w = await world();
  const proxy = await startCuttingProxy(w.srv.url);
  try {
    const [, user, secret] = w.remoteConfig.split('|');
    const sum = writePattern(path.join(w.home, 'f.bin'), 80 * MiB, 'drop');
    const env = { FERRY_URL: proxy.url, FERRY_USER: user, FERRY_SECRET: secret };
    const sending = ferry(w, ['send', 'f.bin', '-r', 'bob@example.org', '--json'], { env });
    await until('some chunks', () => chunkPuts(w.lines).filter((c) => c.status === 200).length >= 4, 300_000);
    proxy.cut(3000);
    const r = await sending;
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /retrying sending f\.bin at byte \d+ in \d+ s/);
    const result = JSON.parse(r.stdout);
    const f = await w.srv.request('GET', `/file/${result.files[0].id}`, { headers: asUser('alice') });
    assert.is(f.json.sha256, sum);
    const twice = new Map<number, number>();
    for (const c of chunkPuts(w.lines)) if (c.status === 200) twice.set(c.offset, (twice.get(c.offset) ?? 0) + 1);
    assert.ok([...twice.values()].filter((n) => n > 1).length <= 4, 'at most the chunks in flight are stored twice');
  } finally {
    await proxy.close();
    await w.close();
  }
});

test('exit codes: 1 with one line for what the user can fix, 2 when the server cannot be reached', async () => {
  const w = await world();
  try {
    fs.writeFileSync(path.join(w.home, 'x.txt'), 'x');
    const notLoggedIn = await ferry(w, ['send', 'x.txt', '-r', 'bob@example.org']);
    assert.is(notLoggedIn.code, 1);
    assert.match(notLoggedIn.stderr, /^error: not logged in: run ferry login/);
    assert.is((await ferry(w, ['login', w.remoteConfig])).code, 0);
    const cases: [string[], number, RegExp][] = [
      [['send', 'x.txt', '-r', 'not-an-address'], 1, /bad_email/],
      [['send', 'missing.txt', '-r', 'bob@example.org'], 1, /no such file or folder: missing\.txt/],
      [['send', 'x.txt'], 1, /no recipients/],
      [['send', 'x.txt', '-r', 'bob@example.org', '--password-stdin'], 1, /--password-stdin goes with --encrypt/],
      [['send', 'x.txt', '-r', 'bob@example.org', '--days', 'soon'], 1, /--days/],
      [['get', `${w.srv.url}/?s=download&token=${'0'.repeat(32)}`], 1, /transfer_not_found/],
      [['get', 'not a link'], 1, /not a download link/],
      [
        ['send', 'x.txt', '-r', 'bob@example.org', '--url', 'http://127.0.0.1:1', '--retries', '1'],
        2,
        /cannot connect to 127\.0\.0\.1:1 .*after 2 attempts/,
      ],
    ];
    for (const [args, code, message] of cases) {
      const r = await ferry(w, args);
      assert.is(r.code, code, `${args.join(' ')}: ${r.stderr}`);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
      assert.is(errors.length, 1, r.stderr);
      assert.match(errors[0], message);
    }
    // --guest invites someone to upload instead.
    const g = await ferry(w, ['send', '--guest', 'guest@example.org', '-s', 'your scans', '--json']);
    assert.is(g.code, 0, g.stderr);
    assert.is(JSON.parse(g.stdout).email, 'guest@example.org');
    const guests = await w.srv.request('GET', '/guest', { headers: asUser('alice') });
    assert.equal(
      guests.json.map((x: { email: string }) => x.email),
      ['guest@example.org'],
    );
  } finally {
    await w.close();
  }
});

test.run();
