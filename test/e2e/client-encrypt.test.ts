import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { clientWorld, ClientWorld, runFerry } from '../helpers/client-world';
import { chunkPuts } from '../helpers/request-log';
import { until } from '../helpers/until';
import { asUser } from '../helpers/server';

// `ferry send --encrypt` and `ferry get` of an encrypted transfer, the built binary against a real server.

const MiB = 1024 * 1024;
const CHUNK = 5 * MiB;
const PASSWORD = 'Tr0ub4dor & three';

type World = ClientWorld;
const ferry = runFerry;

/** A server, and the client logged in as alice. */
async function world(): Promise<World> {
  const w = await clientWorld('ferry-client-enc-');
  const login = await ferry(w, ['login', w.remoteConfig]);
  assert.is(login.code, 0, login.stderr);
  return w;
}

/** Reproducible bytes (an AES-CTR keystream over a marker-filled buffer, so plaintext is recognisable). */
function writeFile(file: string, size: number, seed: string): Buffer {
  const data = Buffer.alloc(size);
  const key = crypto.createHash('sha256').update(seed).digest().subarray(0, 16);
  crypto.createCipheriv('aes-128-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(size)).copy(data);
  fs.writeFileSync(file, data);
  return data;
}

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

async function transferOf(w: World, id: number) {
  const t = await w.srv.request('GET', `/transfer/${id}`, { headers: asUser('alice') });
  assert.is(t.status, 200, t.text);
  return t.json as {
    salt?: string;
    encryption: boolean;
    files: { id: number; uid: string; name: string; size: number }[];
    recipients: { download_url: string }[];
  };
}

test('send --encrypt (password from FERRY_PASSWORD): the server stores only ciphertext; get decrypts byte-identical; a wrong or missing password is refused and leaves no file', async () => {
  const w = await world();
  try {
    const big = writeFile(path.join(w.home, 'scan.bin'), 3 * CHUNK + 12_345, 'big');
    const small = writeFile(path.join(w.home, 'note.txt'), 1000, 'small');
    const env = { FERRY_PASSWORD: PASSWORD };
    const sent = await ferry(w, ['send', 'scan.bin', 'note.txt', '-r', 'bob@example.org', '--encrypt', '--json'], {
      env,
    });
    assert.is(sent.code, 0, sent.stderr);
    const r = JSON.parse(sent.stdout);
    assert.is(r.encrypted, true);
    assert.not.ok('password' in r, 'a given password is not echoed');
    assert.not.ok(
      w.lines.some((l) => l.includes(PASSWORD)),
      'the password reached the server log',
    );
    const t = await transferOf(w, r.transfer_id);
    assert.is(t.encryption, true);
    for (const [f, plain] of [
      [t.files.find((x) => x.name === 'scan.bin')!, big],
      [t.files.find((x) => x.name === 'note.txt')!, small],
    ] as const) {
      const stored = fs.readFileSync(path.join(w.srv.dir, 'data', 'files', String(r.transfer_id), f.uid));
      assert.is(stored.length, plain.length + 32 * Math.ceil(plain.length / CHUNK));
      assert.not.ok(stored.includes(plain.subarray(100, 164)), `plaintext of ${f.name} found in storage`);
    }
    // No resume record is left, and none ever held the password.
    const uploads = path.join(w.home, 'config', 'ferry', 'uploads');
    assert.equal(fs.existsSync(uploads) ? fs.readdirSync(uploads) : [], []);

    const link = t.recipients[0].download_url;
    const wrong = await ferry(w, ['get', link, '-o', 'wrong'], { env: { FERRY_PASSWORD: 'not it' } });
    assert.is(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /wrong password/);
    assert.equal(fs.readdirSync(path.join(w.home, 'wrong')), [], 'no plaintext or partial file left');
    const none = await ferry(w, ['get', link, '-o', 'none']);
    assert.is(none.code, 1);
    assert.match(none.stderr, /encrypted end to end: give its password in FERRY_PASSWORD or with --password-stdin/);

    const got = await ferry(w, ['get', link, '-o', 'out', '--password-stdin', '--json'], { stdin: `${PASSWORD}\n` });
    assert.is(got.code, 0, got.stderr);
    assert.is(sha256(fs.readFileSync(path.join(w.home, 'out', 'scan.bin'))), sha256(big));
    assert.is(sha256(fs.readFileSync(path.join(w.home, 'out', 'note.txt'))), sha256(small));
    const result = JSON.parse(got.stdout);
    // Every chunk's GCM tag, and the ciphertext against the SHA-256 the server computed when the upload completed.
    assert.equal(
      result.files.map((f: { verified: string }) => f.verified),
      ['aes-gcm+sha256', 'aes-gcm+sha256'],
    );

    // An interrupted get carries on from its last whole chunk.
    fs.mkdirSync(path.join(w.home, 'again'));
    fs.writeFileSync(path.join(w.home, 'again', 'scan.bin.part'), big.subarray(0, CHUNK + CHUNK / 2));
    const resumed = await ferry(w, ['get', link, '-o', 'again'], { env });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(sha256(fs.readFileSync(path.join(w.home, 'again', 'scan.bin'))), sha256(big));
    assert.not.ok(fs.existsSync(path.join(w.home, 'again', 'scan.bin.part')));
    // A partial file that is not what the chunks decrypt to is caught: sealed again, it misses the server's SHA-256.
    fs.mkdirSync(path.join(w.home, 'bad'));
    const wrongPart = Buffer.from(big.subarray(0, CHUNK));
    wrongPart[1000] ^= 1;
    fs.writeFileSync(path.join(w.home, 'bad', 'scan.bin.part'), wrongPart);
    const caught = await ferry(w, ['get', link, '-o', 'bad'], { env });
    assert.is(caught.code, 2, caught.stderr);
    assert.match(caught.stderr, /SHA-256 mismatch of the ciphertext/);
    assert.not.ok(fs.existsSync(path.join(w.home, 'bad', 'scan.bin')));
    assert.not.ok(fs.existsSync(path.join(w.home, 'bad', 'scan.bin.part')));
  } finally {
    await w.close();
  }
});

test('an encrypted send killed halfway resumes with the same password, at most 4 chunks resent, and decrypts; another password is refused on resume', async () => {
  const w = await world();
  try {
    const plain = writeFile(path.join(w.home, 'big.bin'), 24 * CHUNK + 777, 'resume');
    const chunks = 25;
    const args = ['send', 'big.bin', '-r', 'bob@example.org', '-s', 'nightly', '--encrypt', '--json'];
    const env = { FERRY_PASSWORD: PASSWORD };
    const ok = () => chunkPuts(w.lines).filter((c) => c.status === 200).length;
    let proc: ReturnType<typeof spawn> | null = null;
    const first = ferry(w, args, { env, onStart: (p) => (proc = p) });
    await until('some chunks', () => ok() >= 8, 120_000);
    proc!.kill('SIGKILL');
    assert.is((await first).signal, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 1500));
    const record = fs.readdirSync(path.join(w.home, 'config', 'ferry', 'uploads'));
    assert.is(record.length, 1);
    const kept = fs.readFileSync(path.join(w.home, 'config', 'ferry', 'uploads', record[0]), 'utf8');
    assert.not.ok(kept.includes(PASSWORD), 'the resume record holds the password');
    assert.match(kept, /"keyCheck"/);

    const other = await ferry(w, args, { env: { FERRY_PASSWORD: 'An0ther password!' } });
    assert.is(other.code, 1, other.stderr);
    assert.match(other.stderr, /not the one the interrupted send of these files began with/, other.stderr);

    const split = w.lines.length;
    const run1 = chunkPuts(w.lines.slice(0, split));
    const stored1 = new Set(run1.filter((c) => c.status === 200).map((c) => c.offset));
    const tried1 = new Set(run1.map((c) => c.offset));
    const second = await ferry(w, args, { env });
    assert.is(second.code, 0, second.stderr);
    const r = JSON.parse(second.stdout);
    assert.is(r.resumed, true);
    assert.is(r.status, 'available');
    const run2 = chunkPuts(w.lines.slice(split));
    const sent2 = new Set(run2.map((c) => c.offset));
    assert.equal(
      [...sent2].filter((o) => stored1.has(o)),
      [],
      'a stored chunk was sent again',
    );
    assert.ok([...sent2].filter((o) => tried1.has(o)).length <= 4, 'more than 4 chunks resent');
    assert.is(new Set([...stored1, ...run2.filter((c) => c.status === 200).map((c) => c.offset)]).size, chunks);

    const t = await transferOf(w, r.transfer_id);
    const got = await ferry(w, ['get', t.recipients[0].download_url, '-o', 'out'], { env });
    assert.is(got.code, 0, got.stderr);
    assert.match(got.stdout, /decrypted/);
    assert.is(sha256(fs.readFileSync(path.join(w.home, 'out', 'big.bin'))), sha256(plain));
  } finally {
    await w.close();
  }
});

test('send --encrypt with no password: one is generated (version 2), shown once, and decrypts', async () => {
  const w = await world();
  try {
    const plain = writeFile(path.join(w.home, 'contract.pdf'), CHUNK + 1, 'gen');
    const text = await ferry(w, ['send', 'contract.pdf', '--link', '--encrypt']);
    assert.is(text.code, 0, text.stderr);
    const shown =
      /generated password \(give it to the recipients by another channel; it is not stored anywhere\): (\S+)/.exec(
        text.stderr,
      );
    assert.ok(shown, text.stderr);
    assert.is(shown![1].length, 44);
    assert.not.ok(text.stdout.includes(shown![1]), 'the password went to standard output');
    const link = /^link: (\S+)/m.exec(text.stdout)![1];
    const got = await ferry(w, ['get', link, '-o', 'out'], { env: { FERRY_PASSWORD: shown![1] } });
    assert.is(got.code, 0, got.stderr);
    assert.is(sha256(fs.readFileSync(path.join(w.home, 'out', 'contract.pdf'))), sha256(plain));

    // --json carries it for a script; the transfer says version 2 (base64), and the server never saw it.
    const json = await ferry(w, ['send', 'contract.pdf', '-r', 'carol@example.org', '--encrypt', '--json']);
    assert.is(json.code, 0, json.stderr);
    const r = JSON.parse(json.stdout);
    assert.is(r.password.length, 44);
    const t = (await w.srv.request('GET', `/transfer/${r.transfer_id}`, { headers: asUser('alice') })).json;
    assert.is(t.encryption_password_version, 2);
    assert.is(t.encryption_password_encoding, 'base64');
    assert.not.ok(w.lines.some((l) => l.includes(r.password) || l.includes(shown![1])));
    const wrong = await ferry(w, ['get', t.recipients[0].download_url, '-o', 'out2'], {
      env: { FERRY_PASSWORD: shown![1] },
    });
    assert.is(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /wrong password/);
    const right = await ferry(w, ['get', t.recipients[0].download_url, '-o', 'out2'], {
      env: { FERRY_PASSWORD: r.password },
    });
    assert.is(right.code, 0, right.stderr);
    assert.is(sha256(fs.readFileSync(path.join(w.home, 'out2', 'contract.pdf'))), sha256(plain));
  } finally {
    await w.close();
  }
});

test('a generated password is shown before the first chunk: a killed send resumes with it in FERRY_PASSWORD', async () => {
  const w = await world();
  try {
    const plain = writeFile(path.join(w.home, 'data.bin'), 20 * CHUNK, 'gen-resume');
    const args = ['send', 'data.bin', '-r', 'bob@example.org', '--encrypt'];
    let proc: ReturnType<typeof spawn> | null = null;
    let stderr = '';
    const first = ferry(w, args, {
      onStart: (p) => {
        proc = p;
        p.stderr!.on('data', (d) => (stderr += d));
      },
    });
    await until('a few chunks', () => chunkPuts(w.lines).filter((c) => c.status === 200).length >= 4, 120_000);
    proc!.kill('SIGKILL');
    await first;
    const password = /generated password .*: (\S+)/.exec(stderr)?.[1];
    assert.ok(password, stderr);
    // Given back in FERRY_PASSWORD, it carries on the same transfer (and is not shown again).
    const again = await ferry(w, args, { env: { FERRY_PASSWORD: password } });
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stdout, /resumed, encrypted end to end/);
    assert.not.match(again.stderr, /generated password/);
    const id = Number(/transfer (\d+) sent/.exec(again.stdout)![1]);
    const t = await transferOf(w, id);
    const got = await ferry(w, ['get', t.recipients[0].download_url, '-o', 'out'], {
      env: { FERRY_PASSWORD: password },
    });
    assert.is(got.code, 0, got.stderr);
    assert.is(sha256(fs.readFileSync(path.join(w.home, 'out', 'data.bin'))), sha256(plain));
  } finally {
    await w.close();
  }
});

test.run();
