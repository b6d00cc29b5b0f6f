import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { typedPasswordKey } from '../helpers/encryption/typed-password-key';
import { transferBody } from '../helpers/factories';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, HEADER_SP, asUser, TestServer, tempDir } from '../helpers/server';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { aeadText, decryptChunk, fileCrypto } from '../../src/shared-crypto/format';
import { python3Cryptography } from '../helpers/system/parts';

// The requests filesender.py 3.8 makes for `-e <password>` (encrypt_chunk_aesgcm / decrypt_chunk), with the
// cryptography done by the independent Python implementation (test/helpers/encryption/reference.py): numbers as
// strings, no client entropy, the AEAD base64-encoded, each chunk PUT at its plaintext offset with only its
// key, and the download fetched chunk by chunk in FileSender's Range coordinates. The ciphertext that comes back
// must decrypt in Python and in ferry's own format code.
const S = 8192;
const REFERENCE = path.resolve(__dirname, '../helpers/encryption/reference.py');
const PASSWORD = 'Tr0ub4dor&3-horse';
let s: TestServer;
const dir = tempDir('ferry-fs-client-');
const alice = asUser('alice');

test.before(async () => {
  await python3Cryptography();
  s = await startTestServer({ ...HEADER_SP, upload_chunk_size: S, encryption_password_hash_iterations: 10000 });
});
test.after(async () => {
  await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function reference(
  mode: 'encrypt' | 'decrypt',
  password: string,
  salt: string,
  iv: string,
  aead: string,
  input: Buffer,
): { status: number | null; bytes: Buffer } {
  const job = {
    mode,
    password,
    password_version: 1,
    password_encoding: 'none',
    salt,
    iterations: 10000,
    fileiv: iv,
    fileaead: aead,
    chunk_size: S,
    input: path.join(dir, `${mode}.in`),
    output: path.join(dir, `${mode}.out`),
  };
  fs.writeFileSync(job.input, input);
  fs.rmSync(job.output, { force: true });
  fs.writeFileSync(path.join(dir, 'job.json'), JSON.stringify(job));
  const r = spawnSync('python3', [REFERENCE, path.join(dir, 'job.json')], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0 && r.status !== 3) throw new Error(r.stderr);
  return { status: r.status, bytes: fs.existsSync(job.output) ? fs.readFileSync(job.output) : Buffer.alloc(0) };
}

test('an upload encrypted as filesender.py -e does it, downloaded as filesender.py -d does it, decrypts byte-identical', async () => {
  const data = patternBytes('lab results ', 3 * S + 777);
  const iv = Buffer.from('0123456789ab').toString('base64'); // 12 octets, as os.urandom(iv_len - 4) gives
  const aead = Buffer.from(aeadText(data.length, S, iv), 'ascii').toString('base64');
  const info = (await s.request('GET', '/info')).json;
  const created = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({
      files: [{ name: 'results.csv', size: data.length, iv, aead }],
      recipients: ['bob@example.org'],
      subject: null,
      message: null,
      aup_checked: 1,
      options: [],
      encryption: true,
      encryption_key_version: '3',
      encryption_password_encoding: 'none',
      encryption_password_version: '1',
      encryption_password_hash_iterations: info.encryption_password_hash_iterations,
    }),
  });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  const f = t.files[0];
  const sealed = reference('encrypt', PASSWORD, t.salt, iv, aead, data).bytes;
  assert.is(sealed.length, data.length + 4 * 32);
  for (let i = 0, offset = 0; offset < data.length; i++, offset += S) {
    const body = sealed.subarray(i * (S + 32), (i + 1) * (S + 32));
    const r = await s.request('PUT', `/file/${f.id}/chunk/${offset}?key=${f.uid}`, {
      headers: { 'Content-Type': 'application/octet-stream' },
      body,
    });
    assert.is(r.status, 200, r.text);
  }
  assert.is((await s.request('PUT', `/file/${f.id}?key=${f.uid}`, { json: { complete: true } })).status, 200);
  const done = await s.request('PUT', `/transfer/${t.id}?key=${f.uid}`, { json: { complete: true } });
  assert.is(done.status, 200, done.text);
  const token = done.json.recipients[0].token;

  const got: Buffer[] = [];
  for (let i = 0, offset = 0; offset < data.length; i++, offset += S) {
    const end = Math.min(i * S + S + 32 - 1, data.length + 32 - 1);
    const r = await fetch(`${s.url}/download?token=${token}&files_ids=${f.id}`, {
      headers: { Range: `bytes=${offset}-${end}` },
    });
    assert.is(r.status, 206);
    got.push(Buffer.from(await r.arrayBuffer()));
  }
  const ciphertext = Buffer.concat(got);
  assert.ok(ciphertext.equals(sealed), 'the ranges give back exactly what was uploaded');
  assert.is(sha256(reference('decrypt', PASSWORD, t.salt, iv, aead, ciphertext).bytes), sha256(data));
  assert.is(reference('decrypt', 'Tr0ub4dor&3-horsf', t.salt, iv, aead, ciphertext).status, 3);

  const key = await typedPasswordKey(PASSWORD, t.salt, 10000);
  const fc = fileCrypto(iv, aead, S);
  const plain = await Promise.all(got.map((c, i) => decryptChunk(key, fc, i, c)));
  assert.is(sha256(Buffer.concat(plain)), sha256(data));
});

test.run();
