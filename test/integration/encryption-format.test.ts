import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  aeadText,
  chunkIv,
  decryptChunk,
  DecryptError,
  deriveKey,
  encryptChunk,
  encryptedSize,
  fileCrypto,
  fromBase64,
  generatePassword,
  passwordProblems,
  storedOffset,
  toBase64,
  type FileCrypto,
  type KeyParams,
} from '../../src/shared-crypto/format';
import { python3Cryptography } from '../helpers/system/parts';

// The FileSender key-version-3 format (docs/encryption.md) against an independent implementation on Python's
// `cryptography` (test/helpers/encryption/reference.py): ciphertext made here must decrypt there and the other
// way round, byte for byte, and a wrong password must fail on both sides.
const REFERENCE = path.resolve(__dirname, '../helpers/encryption/reference.py');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-e2ee-'));
const CHUNK = 1000;

interface Case extends KeyParams {
  fileiv: string;
  size: number;
}

function crypt(c: Case): FileCrypto {
  return fileCrypto(c.fileiv, btoa(aeadText(c.size, CHUNK, c.fileiv)), CHUNK);
}

async function encryptHere(c: Case, plain: Uint8Array): Promise<Uint8Array> {
  const key = await deriveKey(c);
  const f = crypt(c);
  const parts: Uint8Array[] = [];
  for (let i = 0; i * CHUNK < plain.length; i++)
    parts.push(await encryptChunk(key, f, i, plain.subarray(i * CHUNK, (i + 1) * CHUNK)));
  return Buffer.concat(parts);
}

async function decryptHere(c: Case, stored: Uint8Array): Promise<Uint8Array> {
  const key = await deriveKey(c);
  const f = crypt(c);
  const parts: Uint8Array[] = [];
  for (let i = 0, at = 0; at < stored.length; i++, at += CHUNK + 32)
    parts.push(await decryptChunk(key, f, i, stored.subarray(at, at + CHUNK + 32)));
  return Buffer.concat(parts);
}

/** Runs the Python reference on `input`; returns its exit status, stdout and the output file's bytes. */
function python(
  mode: 'encrypt' | 'decrypt',
  c: Case,
  input: Uint8Array,
  password = c.password,
): { status: number | null; out: string; bytes: Buffer } {
  const name = crypto.randomUUID();
  const job = {
    mode,
    password,
    password_version: c.passwordVersion,
    password_encoding: c.passwordEncoding,
    salt: c.salt,
    iterations: c.iterations,
    fileiv: c.fileiv,
    fileaead: btoa(aeadText(c.size, CHUNK, c.fileiv)),
    chunk_size: CHUNK,
    input: path.join(dir, `${name}.in`),
    output: path.join(dir, `${name}.out`),
  };
  fs.writeFileSync(job.input, input);
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(job));
  const r = spawnSync('python3', [REFERENCE, path.join(dir, `${name}.json`)], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0 && r.status !== 3 && r.status !== 4) throw new Error(`reference.py failed: ${r.stderr}`);
  return {
    status: r.status,
    out: r.stdout.trim(),
    bytes: fs.existsSync(job.output) ? fs.readFileSync(job.output) : Buffer.alloc(0),
  };
}

const SALT = 'q0r6Nm8sZbT1xw2vY9UoE4hJkLpAaBcD'; // 32 characters, as the server makes it
const typed: Case = {
  password: 'Gr€en-Tea 42 Übung',
  passwordVersion: 1,
  passwordEncoding: 'none',
  salt: SALT,
  iterations: 150_000,
  fileiv: 'q83vASNFZ4mrze8B',
  size: 2500,
};

test.before(async () => {
  await python3Cryptography();
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a fixed vector: both sides make the same bytes, and those bytes are frozen here', async () => {
  const plain = new Uint8Array(typed.size).map((_, i) => (i * 7 + 3) & 0xff);
  const ours = await encryptHere(typed, plain);
  const theirs = python('encrypt', typed, plain);
  assert.is(theirs.out, 'chunks 3');
  assert.is(ours.length, encryptedSize(typed.size, CHUNK));
  assert.is(ours.length, 2500 + 3 * 32);
  assert.ok(Buffer.from(ours).equals(theirs.bytes), 'the TypeScript and the Python ciphertexts differ');
  // Frozen from the Python reference, so a change to the format is caught even without python3.
  assert.is(crypto.createHash('sha256').update(ours).digest('hex'), FROZEN_SHA256);
  // Chunk 2's IV: the file IV, then 2 as a little-endian 32-bit integer.
  assert.is(
    Buffer.from(ours.subarray(2 * 1032, 2 * 1032 + 16)).toString('hex'),
    Buffer.from(fromBase64(typed.fileiv)).toString('hex') + '02000000',
  );
});

test('ferry encrypts a typed password; Python decrypts it; a wrong password fails there', async () => {
  const plain = crypto.randomBytes(typed.size);
  const stored = await encryptHere(typed, plain);
  assert.not.ok(Buffer.from(stored).includes(plain.subarray(0, 64)), 'plaintext visible in the ciphertext');
  const back = python('decrypt', typed, stored);
  assert.is(back.status, 0);
  assert.ok(back.bytes.equals(plain));
  const wrong = python('decrypt', typed, stored, 'Gr€en-Tea 42 Übunh');
  assert.is([wrong.status, wrong.out].join(' '), '3 wrong_password');
});

test('Python encrypts with a generated (version 2) password; ferry decrypts it; a wrong one is refused', async () => {
  const gen = generatePassword();
  assert.is(gen.value.length, 44);
  assert.is(fromBase64(gen.value).length, 32);
  const c: Case = {
    password: gen.value,
    passwordVersion: gen.version,
    passwordEncoding: gen.encoding,
    salt: 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi',
    iterations: 1000,
    fileiv: toBase64(crypto.randomBytes(12)),
    size: 3000,
  };
  const plain = crypto.randomBytes(c.size); // exactly 3 chunks: no short last chunk
  const stored = python('encrypt', c, plain).bytes;
  assert.is(stored.length, 3000 + 3 * 32);
  assert.ok(Buffer.from(await decryptHere(c, stored)).equals(plain));
  const other = generatePassword().value;
  try {
    await decryptHere({ ...c, password: other }, stored);
    assert.unreachable('decrypted with another password');
  } catch (e) {
    assert.instance(e, DecryptError);
    assert.is((e as DecryptError).reason, 'wrong_password');
  }
  // Text that is not base64 cannot be a generated password.
  try {
    await decryptHere({ ...c, password: 'not base64 at all!' }, stored);
    assert.unreachable();
  } catch (e) {
    assert.is((e as DecryptError).reason, 'wrong_password');
  }
});

test('a re-encrypted chunk is byte-identical (resume), and a chunk in the wrong place is refused', async () => {
  const key = await deriveKey({ ...typed, iterations: 1000 });
  const f = crypt(typed);
  const plain = crypto.randomBytes(CHUNK);
  const a = await encryptChunk(key, f, 1, plain);
  const b = await encryptChunk(key, f, 1, plain);
  assert.ok(Buffer.from(a).equals(b));
  try {
    await decryptChunk(key, f, 0, a);
    assert.unreachable();
  } catch (e) {
    assert.is((e as DecryptError).reason, 'bad_chunk_iv');
  }
  const altered = Uint8Array.from(a);
  altered[100] ^= 1;
  try {
    await decryptChunk(key, f, 1, altered);
    assert.unreachable();
  } catch (e) {
    assert.is((e as DecryptError).reason, 'wrong_password');
  }
});

test("the AEAD string is FileSender's, and a file whose AEAD disagrees with its IV or chunk size is refused", () => {
  assert.is(
    aeadText(10_485_761, 5_242_880, 'q83vASNFZ4mrze8B'),
    '{"aeadversion":1,"chunkcount":3,"chunksize":5242880,"iv":"q83vASNFZ4mrze8B","aeadterminator":1}',
  );
  const good = btoa(aeadText(10, 1000, typed.fileiv));
  assert.is(fileCrypto(typed.fileiv, good, 1000).chunkCount, 1);
  for (const [iv, aead, size] of [
    [typed.fileiv, good, 2000],
    ['AAAAAAAAAAAAAAAA', good, 1000],
    [typed.fileiv, btoa('{"aeadversion":2}'), 1000],
    [typed.fileiv, 'not base64!', 1000],
    ['short', good, 1000],
  ] as const) {
    assert.throws(
      () => fileCrypto(iv, aead, size),
      (e: unknown) => e instanceof DecryptError,
    );
  }
  assert.is(Buffer.from(chunkIv(new Uint8Array(12), 0x01020304).subarray(12)).toString('hex'), '04030201');
});

test('stored offsets and sizes count 32 octets per chunk', () => {
  const S = 5_242_880;
  assert.is(storedOffset(0, S), 0);
  assert.is(storedOffset(3 * S, S), 3 * (S + 32));
  assert.is(encryptedSize(S, S), S + 32);
  assert.is(encryptedSize(S + 1, S), S + 1 + 64);
  assert.is(encryptedSize(0, S), 0);
});

test('password rules name what is missing', () => {
  const rules = { minLength: 12, mixedCase: true, numbers: true, special: true };
  assert.equal(passwordProblems('short', rules), ['min_length', 'mixed_case', 'numbers', 'special']);
  assert.equal(passwordProblems('longenoughpassword', rules), ['mixed_case', 'numbers', 'special']);
  assert.equal(passwordProblems('Long enough 4 sure', rules), []);
  assert.equal(passwordProblems('abc', { minLength: 3, mixedCase: false, numbers: false, special: false }), []);
});

const FROZEN_SHA256 = '6d43c01600f1055e30abda5167dfd438f74fea738b5242a4a6816b0716bbba8e';

test.run();
