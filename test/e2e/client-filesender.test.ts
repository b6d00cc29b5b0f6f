import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { clientWorld, runFerry, type ClientWorld } from '../helpers/client-world';
import { EMULATED_CHUNK, startFileSenderEmulator, type Emulator } from '../helpers/filesender-emulator';
import { until } from '../helpers/until';

// One binary, both kinds of server: the built `ferry` logs in to a FileSender 3.8 server (emulated from its
// source, test/helpers/filesender-emulator.ts) with its filesender.py.ini, sends files, a folder, a link, an
// encrypted file, invites a guest, gets links back byte for byte, carries on after SIGKILL; and, unchanged, does
// the same with a ferry server.
const SECRET = '5'.repeat(64);
let fs8: Emulator;
let w: ClientWorld;

test.before(async () => {
  fs8 = await startFileSenderEmulator({ users: { alice: SECRET }, chunkDelayMs: 40 });
  w = await clientWorld('ferry-client-fs-');
});
test.after(async () => {
  await fs8.close();
  await w.close();
});

function bytes(name: string, size: number): Buffer {
  const b = crypto.createHash('sha256').update(name).digest();
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = b[i % 32] ^ (i >> 5);
  const p = path.join(w.home, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, out);
  return out;
}

const fsEnv = () => ({ ...w.env, FERRY_FROM: 'alice@example.org', XDG_CONFIG_HOME: path.join(w.home, 'fs-config') });

test('FileSender: login --ini, then send a file, a folder and a link; get gives the link back; --guest', async () => {
  const ini = path.join(w.home, 'filesender.py.ini');
  fs.writeFileSync(
    ini,
    `[system]\nbase_url = ${fs8.rest}\ndefault_transfer_days_valid = 10\n\n[user]\nusername = alice\napikey = ${SECRET}\n`,
  );
  const login = await runFerry(w, ['login', '--ini', ini], { env: fsEnv() });
  assert.is(login.code, 0, login.stderr);
  assert.match(login.stdout, new RegExp(`logged in to ${fs8.rest} as alice`));
  assert.not.ok(login.stdout.includes(SECRET));

  const a = bytes('a.bin', EMULATED_CHUNK * 2 + 3);
  const sent = await runFerry(w, ['send', 'a.bin', '-r', 'bob@example.org', '-s', 'figures'], { env: fsEnv() });
  assert.is(sent.code, 0, sent.stderr);
  assert.match(sent.stdout, /sent a\.bin .*\ntransfer \d+ sent to bob@example\.org: 1 file/);

  const x = bytes('photos/2026/x.jpg', 70_000);
  const r = bytes('photos/readme.txt', 6);
  const link = await runFerry(w, ['send', 'photos', '--link', '--json'], { env: fsEnv() });
  assert.is(link.code, 0, link.stderr);
  const res = JSON.parse(link.stdout);
  assert.is(res.server, 'FileSender');
  assert.equal(res.files.map((f: { name: string }) => f.name).sort(), ['photos/2026/x.jpg', 'photos/readme.txt']);

  const got = await runFerry({ home: w.home, env: { ...w.env, XDG_CONFIG_HOME: path.join(w.home, 'nobody') } }, [
    'get',
    res.link,
    '-o',
    'got',
  ]);
  assert.is(got.code, 0, got.stderr);
  assert.ok(fs.readFileSync(path.join(w.home, 'got/photos/2026/x.jpg')).equals(x));
  assert.ok(fs.readFileSync(path.join(w.home, 'got/photos/readme.txt')).equals(r));
  assert.match(got.stdout + got.stderr, /its size was checked, not its bytes/);

  const guest = await runFerry(w, ['send', '--guest', 'carol@example.org'], { env: fsEnv() });
  assert.is(guest.code, 0, guest.stderr);
  assert.match(guest.stdout, /invited carol@example\.org .*\?s=upload&vid=/);
  assert.ok(a.length > 0);
});

test('FileSender: --encrypt, then get with the password; SIGKILL halfway and the rerun sends only what was not acknowledged', async () => {
  const s = bytes('s.bin', EMULATED_CHUNK * 3);
  const enc = await runFerry(w, ['send', 's.bin', '--link', '--encrypt', '--json'], {
    env: { ...fsEnv(), FERRY_PASSWORD: 'Correct-Horse-9-battery' },
  });
  assert.is(enc.code, 0, enc.stderr);
  const link = JSON.parse(enc.stdout).link;
  const got = await runFerry(w, ['get', link, '-o', 'got-enc'], {
    env: { ...w.env, FERRY_PASSWORD: 'Correct-Horse-9-battery' },
  });
  assert.is(got.code, 0, got.stderr);
  assert.ok(fs.readFileSync(path.join(w.home, 'got-enc/s.bin')).equals(s));

  const big = bytes('big.bin', EMULATED_CHUNK * 40);
  const chunks = () => fs8.log.filter((l) => l.includes('/chunk/')).length;
  const before = chunks();
  const first = runFerry(w, ['send', 'big.bin', '-r', 'bob@example.org', '--parallel', '1'], {
    env: fsEnv(),
    onStart: (p) => void until('ten chunks in', () => chunks() - before >= 10, 60_000).then(() => p.kill('SIGKILL')),
  });
  assert.is((await first).signal, 'SIGKILL');
  const sentBefore = chunks() - before;
  const mid = chunks();
  const again = await runFerry(w, ['send', 'big.bin', '-r', 'bob@example.org', '--parallel', '1'], { env: fsEnv() });
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /resumed/);
  const resent = chunks() - mid;
  // Every chunk FileSender acknowledged is in the record; at most the one in flight is sent twice.
  assert.ok(resent <= 40 - sentBefore + 2, `${resent} chunks after ${sentBefore} before the kill`);
  const t = [...fs8.transfers.values()].find((x) => x.files[0]?.name === 'big.bin')!;
  assert.is(t.status, 'available');
  assert.ok(t.files[0].data.equals(big));
});

test('the same binary, unchanged, against ferry: login with the profile string, send, get', async () => {
  const login = await runFerry(w, ['login', w.remoteConfig]);
  assert.is(login.code, 0, login.stderr);
  const f = bytes('to-ferry.bin', 100_000);
  const sent = await runFerry(w, ['send', 'to-ferry.bin', '--link', '--json']);
  assert.is(sent.code, 0, sent.stderr);
  const r = JSON.parse(sent.stdout);
  assert.is(r.server, 'ferry');
  const got = await runFerry(w, ['get', r.link, '-o', 'got-ferry']);
  assert.is(got.code, 0, got.stderr);
  assert.ok(fs.readFileSync(path.join(w.home, 'got-ferry/to-ferry.bin')).equals(f));
});

test.run();
