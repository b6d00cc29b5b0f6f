import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/temp-dir';
import { spawnServer, waitForExit } from '../helpers/binary';
import { request } from '../helpers/server';
import { inAWeek, patternBytes, sendChunks, sha256 } from '../helpers/upload-client';
import { debianPackaging, systemdAnalyze } from '../helpers/system/parts';
import { latestVersion, rewindLastMigration, schemaAfter, schemaOf } from '../helpers/older-schema';
import BetterSqlite3 from 'better-sqlite3';

/**
 * The Debian package on this machine, as an admin uses it (docs/deploying.md, "The Debian package"): built with
 * `./build.sh --deb`'s script, installed with dpkg, its service's command run as the service's user (systemd is
 * not PID 1 here), upgraded, removed and purged. It installs for real, machine-wide: it refuses to start when a
 * ferry package, user, config or data dir is already on the machine (it would purge someone's data), holds a
 * lock against a second run of itself, and purges what it installed at the end, also when a step failed.
 */

const ROOT = path.resolve(__dirname, '../..');
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;
const NEXT = `${VERSION}+1`;
const CONFIG = '/etc/ferry/ferry.json';
const DATA = '/var/lib/ferry';
const PASSWORD_FILE = `${DATA}/first-admin-password`;
const UNITS = ['ferry.service', 'ferry-purge.service', 'ferry-purge.timer'].map((u) => `/lib/systemd/system/${u}`);
const LOCK = fs.existsSync('/run/lock') ? '/run/lock/ferry-deb-package-test.lock' : '/tmp/ferry-deb-package-test.lock';
const ENV = {
  ...process.env,
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  DEBIAN_FRONTEND: 'noninteractive',
};

interface Run {
  code: number | null;
  out: string;
}

function run(cmd: string, args: string[], timeoutMs = 5 * 60_000): Run {
  const r = spawnSync(cmd, args, { env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** As run, without blocking this process (bounded: killed after timeoutMs). */
function runAsync(cmd: string, args: string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
  });
}

function packageStatus(): string {
  const r = spawnSync('dpkg-query', ['-W', '-f=${db:Status-Abbrev} ${Version}', 'ferry'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}

/** What this machine has of ferry: compared before and after, so the test leaves it as it found it. */
function ferryFootprint(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      const p = path.join(dir, n);
      if (n.includes('ferry')) found.push(p);
      if (fs.lstatSync(p).isDirectory()) walk(p);
    }
  };
  for (const dir of ['/etc/systemd/system', '/var/lib/systemd', '/lib/systemd/system', '/etc/ferry', DATA]) walk(dir);
  for (const p of ['/usr/bin/ferry', '/etc/ferry', DATA]) if (fs.existsSync(p)) found.push(p);
  for (const db of ['passwd', 'group']) {
    const r = spawnSync('getent', [db, 'ferry'], { encoding: 'utf8' });
    if (r.stdout.trim()) found.push(`${db}: ${r.stdout.trim()}`);
  }
  const so = spawnSync('dpkg-statoverride', ['--list'], { encoding: 'utf8' });
  found.push(...so.stdout.split('\n').filter((l) => l.includes('ferry')));
  const st = packageStatus();
  if (st) found.push(`dpkg: ${st}`);
  return found.sort();
}

const state: {
  refused: string | null;
  installed: boolean;
  dir: string;
  debs: { first: string; next: string };
  before: string[];
  lintian: Promise<Run> | null;
  servers: ChildProcess[];
  upload: { token: string; fileId: number; sha: string } | null;
} = {
  refused: 'not checked yet',
  installed: false,
  dir: '',
  debs: { first: '', next: '' },
  before: [],
  lintian: null,
  servers: [],
  upload: null,
};

/** Refuses (with the reason) to run where it could collide with another run or with ferry already installed. */
function claimMachine(): string | null {
  if (process.getuid?.() !== 0) return 'the Debian package test installs a package: run it as root';
  try {
    fs.writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(fs.readFileSync(LOCK, 'utf8'));
    let alive = false;
    try {
      process.kill(holder, 0);
      alive = true;
    } catch {}
    if (alive) return `another run of this test (pid ${holder}, ${LOCK}) is installing the package; run one at a time`;
    fs.rmSync(LOCK, { force: true });
    fs.writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
  }
  const footprint = ferryFootprint();
  if (footprint.length) {
    fs.rmSync(LOCK, { force: true });
    return `ferry is already on this machine and this test did not install it (${footprint.join('; ')}): the test purges what it installs, so it does not run here; remove it first (dpkg -P ferry, userdel ferry) if it is a leftover`;
  }
  return null;
}

function stopServers(): void {
  for (const p of state.servers) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  state.servers = [];
}

/** The end of every run, passed or failed: our servers stopped, our package purged, the lock given back. */
function cleanUp(): void {
  stopServers();
  if (state.installed && packageStatus()) run('dpkg', ['--purge', 'ferry']);
  state.installed = false;
  if (state.refused === null) fs.rmSync(LOCK, { force: true });
}
process.once('exit', cleanUp);
// Stopped from outside (the runner's time limit, Ctrl-C): the package goes too.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    cleanUp();
    process.exit(1);
  });

function mustRun(): void {
  if (state.refused) throw new Error(state.refused);
}

function ferryIds(): { uid: number; gid: number } {
  const r = spawnSync('getent', ['passwd', 'ferry'], { encoding: 'utf8' });
  const f = r.stdout.trim().split(':');
  return { uid: Number(f[2]), gid: Number(f[3]) };
}

/** A ferry command as the service's user, in the environment systemd gives the service. */
function asFerry(args: string[]): Run {
  const r = spawnSync('/usr/bin/ferry', args, {
    ...ferryIds(),
    cwd: '/',
    env: serviceEnv(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

function serviceEnv(): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: DATA,
    USER: 'ferry',
    LOGNAME: 'ferry',
    SHELL: '/usr/sbin/nologin',
    LANG: 'C.UTF-8',
  };
}

/**
 * The installed unit's ExecStart, run as its User= and Group= from / (systemd's defaults) until it listens. The
 * unit is the one the package installed, so a change to it (another user, another config path) shows here.
 */
async function startService(): Promise<{ url: string; proc: ChildProcess; output: () => string }> {
  const unit = fs.readFileSync('/lib/systemd/system/ferry.service', 'utf8').split('\n');
  const execStart = unit
    .find((l) => l.startsWith('ExecStart='))!
    .slice('ExecStart='.length)
    .split(' ');
  assert.equal(execStart, ['/usr/bin/ferry', 'serve', '-c', CONFIG]);
  assert.ok(unit.includes('User=ferry') && unit.includes('Group=ferry'));
  const { proc, url, output } = await spawnServer(
    execStart[0],
    execStart.slice(1),
    { ...ferryIds(), cwd: '/', env: serviceEnv() },
    { label: 'the packaged ferry.service', logDebug: () => false, timeoutMs: 30_000 },
  );
  state.servers.push(proc);
  return { url, proc, output };
}

async function stopService(proc: ChildProcess): Promise<void> {
  proc.kill('SIGTERM');
  assert.is(await waitForExit(proc, 30_000), 0, 'ferry serve ends with 0 on SIGTERM, as systemctl stop sends');
  state.servers = state.servers.filter((p) => p !== proc);
}

/** Signs in as the first admin with the password the install wrote; the headers of its requests. */
async function signIn(url: string): Promise<Record<string, string>> {
  const password = fs.readFileSync(PASSWORD_FILE, 'utf8').trim();
  const r = await request(url, 'POST', '/login', { json: { user_id: 'admin', password } });
  assert.is(r.status, 200, r.text);
  const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0];
  return { Cookie: cookie, 'X-Ferry-Security-Token': (r.json as { csrf_token: string }).csrf_token };
}

async function download(url: string, token: string, fileId: number): Promise<Buffer> {
  const res = await fetch(`${url}/download?token=${token}&files_ids=${fileId}`, {
    signal: AbortSignal.timeout(30_000),
  });
  assert.is(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

test('the package builds from dist/ferry with dpkg-deb; it depends only on the C and C++ runtimes', async () => {
  await debianPackaging();
  state.refused = claimMachine();
  mustRun();
  state.before = ferryFootprint();
  state.dir = tempDir('ferry-deb-');
  // Both at once (a second core), the same way: the version of package.json, and a higher one to upgrade to.
  const build = (args: string[]) =>
    runAsync(path.join(ROOT, 'scripts/deb/build.sh'), ['--fast', '--out', state.dir, ...args], 3 * 60_000);
  const [first, next] = await Promise.all([build([]), build(['--version', NEXT])]);
  assert.is(first.code, 0, first.out);
  assert.is(next.code, 0, next.out);
  state.debs = {
    first: path.join(state.dir, `ferry_${VERSION}_amd64.deb`),
    next: path.join(state.dir, `ferry_${NEXT}_amd64.deb`),
  };
  // lintian reads the whole 110 MB executable (about a minute): it runs while the package is tried out.
  state.lintian = runAsync('lintian', [state.debs.first], 5 * 60_000);
  const field = (f: string) => run('dpkg-deb', ['--field', state.debs.first, f]).out.trim();
  assert.is(field('Package'), 'ferry');
  assert.is(field('Version'), VERSION);
  assert.is(field('Architecture'), 'amd64');
  const depends = field('Depends').split(/,\s*/);
  assert.equal(
    depends.map((d) => d.split(' ')[0]).sort(),
    ['libc6', 'libgcc-s1', 'libstdc++6'],
    `Depends: ${depends.join(', ')}`,
  );
  const contents = run('dpkg-deb', ['--contents', state.debs.first]).out;
  for (const f of ['./usr/bin/ferry', CONFIG, ...UNITS].map((p) => (p.startsWith('./') ? p : `.${p}`)))
    assert.ok(contents.includes(f), `${f} in the package:\n${contents}`);
  assert.is(run('dpkg-deb', ['--info', state.debs.first, 'conffiles']).out.trim(), CONFIG);
});

test('dpkg -i: the user, the data dir (0750), the conffile, the first admin (its password in a 0600 file); config check and systemd-analyze verify pass', async () => {
  mustRun();
  state.installed = true;
  const r = run('dpkg', ['--install', state.debs.first]);
  assert.is(r.code, 0, r.out);
  assert.ok(packageStatus().startsWith('ii '), packageStatus());
  assert.match(r.out, `its password is in ${PASSWORD_FILE} (mode 0600`);
  assert.match(r.out, `database ${DATA}/ferry.db: created at schema version ${latestVersion()}`);

  const { uid, gid } = ferryIds();
  assert.ok(uid > 0 && uid < 1000, `a system user: uid ${uid}`);
  const passwd = run('getent', ['passwd', 'ferry']).out.trim().split(':');
  assert.is(passwd[5], DATA);
  assert.is(passwd[6], '/usr/sbin/nologin');
  const data = fs.statSync(DATA);
  assert.is(data.mode & 0o777, 0o750);
  assert.equal([data.uid, data.gid], [uid, gid]);
  const pw = fs.statSync(PASSWORD_FILE);
  assert.is(pw.mode & 0o777, 0o600);
  assert.is(pw.uid, uid);
  const conf = fs.statSync(CONFIG);
  assert.is(conf.mode & 0o777, 0o640, 'the config may hold passwords: root writes it, the group ferry reads it');
  assert.equal([conf.uid, conf.gid], [0, gid]);
  assert.is(fs.statSync('/usr/bin/ferry').mode & 0o777, 0o755);
  assert.is(run('/usr/bin/ferry', ['version']).out.trim(), `ferry ${VERSION}`);
  // The embedded defaults, written out, with the data in /var/lib/ferry.
  const written = JSON.parse(fs.readFileSync(CONFIG, 'utf8'));
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'config.example.json'), 'utf8'));
  assert.equal(written, { ...example, data_dir: DATA });

  const check = asFerry(['config', 'check', '-c', CONFIG]);
  assert.is(check.code, 0, check.out);
  assert.match(check.out, `config ok: ${CONFIG}; metadata in SQLite under ${DATA}`);

  const verify = run(await systemdAnalyze(), ['verify', ...UNITS], 60_000);
  assert.is(verify.code, 0, verify.out);
  assert.is(verify.out.trim(), '', `systemd-analyze verify warned:\n${verify.out}`);
  assert.ok(fs.existsSync('/etc/systemd/system/multi-user.target.wants/ferry.service'), 'enabled on install');

  // Idempotent: the postinst run again as after a first configure that failed half-way (no earlier version)
  // finds the user, the dir and the account, and changes none of them.
  const password = fs.readFileSync(PASSWORD_FILE, 'utf8');
  const again = run('/var/lib/dpkg/info/ferry.postinst', ['configure']);
  assert.is(again.code, 0, again.out);
  assert.match(again.out, 'a local account exists already: none created');
  assert.is(fs.readFileSync(PASSWORD_FILE, 'utf8'), password);
  assert.equal(ferryIds(), { uid, gid });
  assert.is(fs.statSync(CONFIG).mode & 0o777, 0o640);
});

test("the unit's ExecStart as the ferry user: sign in with the first password, upload, download", async () => {
  mustRun();
  // The admin's edits: a free port (tests share this machine) and the public address.
  const config = JSON.parse(fs.readFileSync(CONFIG, 'utf8'));
  config.listen.port = 0;
  config.base_url = 'http://files.ferry-package.test';
  fs.writeFileSync(CONFIG, `${JSON.stringify(config, null, 2)}\n`);

  const svc = await startService();
  const headers = await signIn(svc.url);
  const data = patternBytes('deb-package', 3 * 1024 * 1024 + 17);
  const created = await request(svc.url, 'POST', '/transfer', {
    headers,
    json: {
      files: [{ name: 'report.bin', size: data.length }],
      recipients: ['lab@example.org'],
      from: 'admin@localhost.localdomain',
      expires: inAWeek(),
    },
  });
  assert.is(created.status, 201, created.text);
  const t = created.json as { id: number; files: { id: number }[] };
  const fileId = t.files[0].id;
  const put = (p: string, json: unknown) => request(svc.url, 'PUT', p, { headers, json });
  for (const r of await sendChunks((m, p, i) => request(svc.url, m, p, i), fileId, data, 1024 * 1024, { headers }))
    assert.is(r.status, 200, r.text);
  assert.is((await put(`/file/${fileId}`, { complete: true })).status, 200);
  const done = await put(`/transfer/${t.id}`, { complete: true });
  assert.is(done.status, 200, done.text);
  const recipient = (done.json as { recipients: { token: string; download_url: string }[] }).recipients[0];
  assert.match(recipient.download_url, /^http:\/\/files\.ferry-package\.test\//);
  const got = await download(svc.url, recipient.token, fileId);
  assert.is(sha256(got), sha256(data));
  state.upload = { token: recipient.token, fileId, sha: sha256(data) };
  // What it wrote is the service user's, inside its data dir.
  const { uid } = ferryIds();
  for (const f of ['ferry.db', 'files']) assert.is(fs.statSync(path.join(DATA, f)).uid, uid, f);
  await stopService(svc.proc);
});

test('upgrade to a higher version: the config edits and the data kept, the migration run by dpkg before the service starts', async () => {
  mustRun();
  assert.ok(state.upload, 'the upload of the previous test');
  const edited = fs.readFileSync(CONFIG, 'utf8');
  const password = fs.readFileSync(PASSWORD_FILE, 'utf8');
  // The database as the release before the last migration left it (rows kept), for the upgrade to migrate.
  const db = path.join(DATA, 'ferry.db');
  const rewound = rewindLastMigration(db);
  const { uid, gid } = ferryIds();
  for (const f of fs.readdirSync(DATA).filter((f) => f.startsWith('ferry.db')))
    fs.chownSync(path.join(DATA, f), uid, gid);

  const r = run('dpkg', ['--install', state.debs.next]);
  assert.is(r.code, 0, r.out);
  assert.ok(packageStatus().startsWith(`ii  ${NEXT}`), packageStatus());
  assert.match(r.out, `database ${db}: migrated from schema version ${rewound.to} to ${rewound.from}`);
  assert.not.match(r.out, 'created the first account');
  const after = new BetterSqlite3(db, { readonly: true });
  try {
    assert.is(after.pragma('user_version', { simple: true }), latestVersion());
    assert.equal(
      schemaOf(after).map((o) => `${o.type} ${o.name}`),
      schemaAfter(latestVersion()).map((o) => `${o.type} ${o.name}`),
    );
  } finally {
    after.close();
  }
  assert.is(fs.readFileSync(CONFIG, 'utf8'), edited, 'a config the admin edited is never overwritten');
  assert.is(fs.statSync(CONFIG).mode & 0o777, 0o640);
  assert.is(fs.readFileSync(PASSWORD_FILE, 'utf8'), password);

  const svc = await startService();
  await signIn(svc.url);
  const got = await download(svc.url, state.upload.token, state.upload.fileId);
  assert.is(sha256(got), state.upload.sha, 'the file uploaded before the upgrade, byte for byte');
  await stopService(svc.proc);
});

test('dpkg -r keeps /var/lib/ferry and the config; dpkg -P removes them, the user and the group', () => {
  mustRun();
  stopServers(); // one a failed test left running would keep the user from being removed
  const removed = run('dpkg', ['--remove', 'ferry']);
  assert.is(removed.code, 0, removed.out);
  assert.ok(packageStatus().startsWith('rc '), packageStatus());
  assert.not.ok(fs.existsSync('/usr/bin/ferry'));
  for (const u of UNITS) assert.not.ok(fs.existsSync(u), u);
  for (const f of ['ferry.db', 'files', 'first-admin-password']) assert.ok(fs.existsSync(path.join(DATA, f)), f);
  assert.ok(fs.existsSync(CONFIG));

  const purged = run('dpkg', ['--purge', 'ferry']);
  assert.is(purged.code, 0, purged.out);
  state.installed = false;
  assert.is(packageStatus(), '');
  assert.not.ok(fs.existsSync(DATA));
  assert.not.ok(fs.existsSync('/etc/ferry'));
  assert.equal(ferryFootprint(), state.before, 'the machine as the test found it');
});

test('lintian reports no error and no warning', async () => {
  mustRun();
  const r = await state.lintian!;
  assert.is(r.code, 0, r.out);
  const tags = r.out.split('\n').filter((l) => /^[EW]: /.test(l));
  assert.equal(tags, [], r.out);
});

test.after(cleanUp);

test.run();
