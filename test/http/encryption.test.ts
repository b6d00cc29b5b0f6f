import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { typedPasswordKey } from '../helpers/encryption/typed-password-key';
import { encryptionFields, transferBody } from '../helpers/factories';
import { startTestServer, HEADER_SP, asUser } from '../helpers/server';
import { serverWithSink } from '../helpers/mail-server';
import { fileWithDigest, storedBytes } from '../helpers/stored-files';
import { patternBytes, sha256, inAWeek } from '../helpers/upload-client';
import {
  aeadText,
  decryptChunk,
  encryptChunk,
  fileCrypto,
  generateFileIv,
  DecryptError,
} from '../../src/shared-crypto/format';

// End-to-end encrypted transfers through the real server (docs/encryption.md): the encryption fields are kept
// and given back, chunks are IV ‖ ciphertext ‖ tag stored at i·(S+32), downloads hand out the ciphertext in
// FileSender's Range coordinates, archives are refused, encryption_mandatory is enforced, the mail says the
// password comes another way. The client side here is ferry's own format module.
const S = 4096;
const PASSWORD = 'Correct Horse 9 battery!';
const alice = asUser('alice');

const { s, sink } = serverWithSink(test, (sink) => ({
  ...HEADER_SP,
  upload_chunk_size: S,
  mail: { transport: sink.url },
}));

function encryptedBody(files: { name: string; data: Buffer }[], over: Record<string, unknown> = {}) {
  const ivs = files.map(() => generateFileIv());
  return {
    ivs,
    body: {
      files: files.map((f, i) => ({
        name: f.name,
        size: f.data.length,
        iv: ivs[i],
        aead: btoa(aeadText(f.data.length, S, ivs[i])),
      })),
      recipients: ['bob@example.org'],
      from: 'alice@example.org',
      expires: inAWeek(),
      ...encryptionFields(),
      ...over,
    },
  };
}

/** Creates, encrypts, uploads and completes; returns the Transfer as created and the encrypted chunks sent. */
async function uploadEncrypted(files: { name: string; data: Buffer }[]) {
  const { body } = encryptedBody(files);
  const created = await s.request('POST', '/transfer', { headers: alice, json: body });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  const key = await keyOf(t.salt);
  const sent: Buffer[][] = [];
  for (const [i, f] of t.files.entries()) {
    const fc = fileCrypto(f.iv, f.aead, S);
    const chunks: Buffer[] = [];
    for (let c = 0; c * S < files[i].data.length; c++) {
      const plain = files[i].data.subarray(c * S, (c + 1) * S);
      const enc = Buffer.from(await encryptChunk(key, fc, c, plain));
      chunks.push(enc);
      const r = await s.request('PUT', `/file/${f.id}/chunk/${c * S}`, {
        headers: {
          ...alice,
          'content-type': 'application/octet-stream',
          'X-Filesender-Chunk-Size': String(plain.length),
          'X-Filesender-File-Size': String(f.size),
        },
        body: enc,
      });
      assert.is(r.status, 200, r.text);
    }
    sent.push(chunks);
    assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  }
  const done = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  return { t, sent, token: done.json.recipients[0].token as string, key };
}

/** The key the pages derive from a password (PASSWORD unless given) and a Transfer's salt, as encryptionFields set it. */
function keyOf(salt: string, password = PASSWORD) {
  return typedPasswordKey(password, salt, 1000);
}

test('the encryption fields are kept and given back; the answer carries the server-made salt', async () => {
  const { body, ivs } = encryptedBody([{ name: 'a.bin', data: Buffer.alloc(5000) }]);
  const r = await s.request('POST', '/transfer', { headers: alice, json: body });
  assert.is(r.status, 201, r.text);
  const t = r.json;
  assert.match(t.salt, /^[A-Za-z0-9+/]{32}$/);
  assert.equal(
    [
      t.encryption,
      t.encryption_key_version,
      t.encryption_password_version,
      t.encryption_password_encoding,
      t.encryption_password_hash_iterations,
      t.encryption_client_entropy,
    ],
    [true, 3, 1, 'none', 1000, body.encryption_client_entropy],
  );
  assert.equal([t.files[0].iv, t.files[0].aead], [ivs[0], body.files[0].aead]);
  const again = (await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json;
  assert.is(again.salt, t.salt);
  assert.is(again.encryption_client_entropy, body.encryption_client_entropy);
  assert.is((await s.request('GET', `/file/${t.files[0].id}`, { headers: alice })).json.iv, ivs[0]);
  // Another transfer gets another salt; a plain one has none.
  const other = (
    await s.request('POST', '/transfer', {
      headers: alice,
      json: encryptedBody([{ name: 'b', data: Buffer.alloc(1) }]).body,
    })
  ).json;
  assert.is.not(other.salt, t.salt);
  const plain = (
    await s.request('POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name: 'p', size: 1 }], recipients: ['bob@example.org'] }),
    })
  ).json;
  assert.is(plain.encryption, false);
  assert.not.ok('salt' in plain);
  assert.not.ok('iv' in plain.files[0]);
});

test("stored bytes are the ciphertext, never the plaintext; downloads in FileSender's Range coordinates decrypt byte-identical", async () => {
  const data = patternBytes('secret payload ', 10_000); // 4096 + 4096 + 1808
  const { t, sent, token, key } = await uploadEncrypted([{ name: 'patients.csv', data }]);
  const f = t.files[0];
  const stored = await storedBytes(s, t.id, f.uid);
  assert.is(stored.length, 10_000 + 3 * 32);
  assert.ok(stored.equals(Buffer.concat(sent[0])), 'stored bytes are the encrypted chunks back to back');
  assert.not.ok(stored.includes(data.subarray(0, 32)), 'plaintext found in storage');
  assert.not.ok(stored.includes(Buffer.from('secret payload')), 'plaintext found in storage');
  const meta = await fileWithDigest(s, f.id, alice);
  assert.equal([meta.received, meta.complete, meta.sha256], [10_000, true, sha256(stored)]);

  // Whole: the ciphertext.
  const url = `${s.url}/download?token=${token}&files_ids=${f.id}`;
  const whole = await fetch(url);
  assert.is(whole.status, 200);
  assert.is(whole.headers.get('content-length'), String(stored.length));
  assert.is(whole.headers.get('content-type'), 'application/octet-stream');
  assert.ok(Buffer.from(await whole.arrayBuffer()).equals(stored));

  // Chunk by chunk as filesender.py -d asks: bytes=i·S-(i·S+S+31), the last ending at size+31.
  const fc = fileCrypto(f.iv, f.aead, S);
  const out: Buffer[] = [];
  for (let i = 0; i * S < data.length; i++) {
    const end = Math.min(i * S + S + 32 - 1, data.length + 32 - 1);
    const r = await fetch(url, { headers: { Range: `bytes=${i * S}-${end}` } });
    assert.is(r.status, 206);
    const body = Buffer.from(await r.arrayBuffer());
    assert.ok(body.equals(sent[0][i]), `chunk ${i} is the stored encrypted chunk`);
    out.push(Buffer.from(await decryptChunk(key, fc, i, body)));
  }
  assert.is(sha256(Buffer.concat(out)), sha256(data));

  // A wrong password fails on the first chunk.
  const wrong = await keyOf(t.salt, 'Correct Horse 9 battery?');
  try {
    await decryptChunk(wrong, fc, 0, sent[0][0]);
    assert.unreachable('decrypted with a wrong password');
  } catch (e) {
    assert.is((e as DecryptError).reason, 'wrong_password');
  }
});

test('the recipient is told the files are encrypted and the password comes another way; it is in no mail', async () => {
  const before = (await sink.messages()).length;
  await uploadEncrypted([{ name: 'x.bin', data: patternBytes('m', 100) }]);
  const mails = await sink.waitFor(before + 1);
  const m = mails[mails.length - 1];
  assert.match(m.text!, /end-to-end encrypted/);
  assert.match(m.text!, /by another channel/);
  for (const raw of sink.raw()) assert.not.ok(raw.includes(PASSWORD));
});

test('encrypted files are never put into a server-made archive', async () => {
  const { t, token } = await uploadEncrypted([
    { name: 'one.bin', data: patternBytes('1', 5000) },
    { name: 'two.bin', data: patternBytes('2', 300) },
  ]);
  for (const q of [
    `token=${token}`,
    `token=${token}&files_ids=${t.files[0].id},${t.files[1].id}`,
    `token=${token}&files_ids=${t.files[1].id}&archive_format=zip`,
    `token=${token}&archive_format=tar`,
  ]) {
    const r = await s.request('GET', `/download?${q}`);
    assert.is(r.status, 400, q);
    assert.is(r.json.message, 'encrypted_files_not_archivable');
  }
  const one = await fetch(`${s.url}/download?token=${token}&files_ids=${t.files[1].id}`);
  assert.is(one.status, 200);
  assert.is(Number(one.headers.get('content-length')), 300 + 32);
  // The recipient's page offers no archive, says the files are encrypted, and never offers an encrypted file's
  // bytes as if they were the file: each waits for the password (decrypted in the browser as it is saved).
  const page = await (await fetch(`${s.url}/?s=download&token=${token}`)).text();
  assert.match(page, /encrypted end to end/);
  assert.not.match(page, /archive_format/);
  for (const f of t.files) assert.not.ok(page.includes(`files_ids=${f.id}" download`), `no plain link to file ${f.id}`);
  assert.is(
    page.split('Encrypted: enter the password above to save it.').length - 1,
    t.files.length,
    'each file waits for the password',
  );
});

test('chunks: whole and aligned only; a re-encrypted chunk (resume) is accepted again; sizes count ciphertext', async () => {
  const data = patternBytes('c', 5000);
  const { body } = encryptedBody([{ name: 'c.bin', data }]);
  const t = (await s.request('POST', '/transfer', { headers: alice, json: body })).json;
  const f = t.files[0];
  const key = await keyOf(t.salt);
  const fc = fileCrypto(f.iv, f.aead, S);
  const c0 = Buffer.from(await encryptChunk(key, fc, 0, data.subarray(0, S)));
  const put = (offset: number, b: Buffer, headers: Record<string, string> = {}) =>
    s.request('PUT', `/file/${f.id}/chunk/${offset}`, {
      headers: { ...alice, 'content-type': 'application/octet-stream', ...headers },
      body: b,
    });
  const cases: [number, Buffer, Record<string, string>, number, string][] = [
    [0, c0.subarray(0, c0.length - 1), {}, 400, 'rest_sanity_check_failed'], // one octet short
    [100, c0, {}, 400, 'file_chunk_out_of_bounds'], // not at a chunk boundary
    [2 * S, c0, {}, 400, 'file_chunk_out_of_bounds'], // past the end
    [0, Buffer.concat([c0, Buffer.alloc(64)]), {}, 413, 'storage_chunk_too_large'],
    [0, c0, { 'X-Filesender-Chunk-Size': String(c0.length) }, 400, 'rest_sanity_check_failed'], // the header counts plaintext
  ];
  for (const [offset, b, h, status, id] of cases) {
    const r = await put(offset, b, h);
    assert.is(r.status, status, `${offset} ${b.length}: ${r.text}`);
    assert.is(r.json.message, id);
  }
  assert.is((await put(0, c0, { 'X-Filesender-Chunk-Size': String(S) })).status, 200);
  const again = Buffer.from(await encryptChunk(key, fc, 0, data.subarray(0, S)));
  assert.ok(again.equals(c0), 'deterministic IVs: the same bytes');
  const r = await put(0, again);
  assert.is(r.status, 200);
  assert.is(r.json.received, S);
  const incomplete = await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } });
  assert.is(incomplete.status, 409);
  const c1 = Buffer.from(await encryptChunk(key, fc, 1, data.subarray(S)));
  assert.is(c1.length, 5000 - S + 32);
  assert.is((await put(S, c1)).status, 200);
  assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
});

test('a guest encrypts too: its transfer keeps the fields, and encryption_mandatory applies to it', async () => {
  const g = (
    await s.request('POST', '/guest', {
      headers: alice,
      json: { recipient: 'guest@example.org', from: 'alice@example.org' },
    })
  ).json;
  const data = patternBytes('g', 5000);
  const { body } = encryptedBody([{ name: 'from-guest.bin', data }]);
  const r = await s.request('POST', `/transfer?vid=${g.token}`, { json: body });
  assert.is(r.status, 201, r.text);
  const t = r.json;
  assert.equal([t.encryption, t.encryption_key_version, t.files[0].iv], [true, 3, body.files[0].iv]);
  const key = await keyOf(t.salt);
  const fc = fileCrypto(t.files[0].iv, t.files[0].aead, S);
  for (let i = 0; i * S < data.length; i++) {
    const chunk = await encryptChunk(key, fc, i, data.subarray(i * S, (i + 1) * S));
    assert.is(
      (
        await s.request('PUT', `/file/${t.files[0].id}/chunk/${i * S}?vid=${g.token}`, {
          body: Buffer.from(chunk),
          headers: { 'content-type': 'application/octet-stream' },
        })
      ).status,
      200,
    );
  }
  assert.is(
    (await s.request('PUT', `/file/${t.files[0].id}?vid=${g.token}`, { json: { complete: true } })).status,
    200,
  );
  const stored = await storedBytes(s, t.id, t.files[0].uid);
  assert.is(stored.length, 5000 + 2 * 32);
  assert.not.ok(stored.includes(data.subarray(0, 32)));
});

test('bad encryption fields are refused, naming the field', async () => {
  const file = { name: 'a', data: Buffer.alloc(5000) };
  const cases: [Record<string, unknown>, string, string][] = [
    [{ encryption_key_version: 1 }, 'rest_bad_parameter', 'encryption_key_version'],
    [{ encryption_key_version: undefined }, 'rest_bad_parameter', 'encryption_key_version'],
    [{ encryption_password_version: 7 }, 'rest_bad_parameter', 'encryption_password_version'],
    [
      { encryption_password_version: 2, encryption_password_encoding: 'none' },
      'rest_bad_parameter',
      'encryption_password_encoding',
    ],
    [{ encryption_password_hash_iterations: -5 }, 'rest_bad_parameter', 'encryption_password_hash_iterations'],
    [{ encryption_client_entropy: 'not base64!' }, 'rest_bad_parameter', 'encryption_client_entropy'],
  ];
  for (const [over, id, field] of cases) {
    const r = await s.request('POST', '/transfer', { headers: alice, json: encryptedBody([file], over).body });
    assert.is(r.status, 400, JSON.stringify(over));
    assert.equal([r.json.message, r.json.details], [id, [field]]);
  }
  const { body } = encryptedBody([file]);
  const badIv = { ...body, files: [{ ...body.files[0], iv: 'AAAA' }] };
  const wrongChunkSize = {
    ...body,
    files: [{ ...body.files[0], aead: btoa(aeadText(5000, 5242880, body.files[0].iv)) }],
  };
  for (const [b, field] of [
    [badIv, 'files[0].iv'],
    [wrongChunkSize, 'files[0].aead'],
  ] as const) {
    const r = await s.request('POST', '/transfer', { headers: alice, json: b });
    assert.equal([r.status, r.json.message, r.json.details], [400, 'rest_bad_parameter', [field]]);
  }
  // FileSender's clients send numbers as strings: accepted.
  const strings = await s.request('POST', '/transfer', {
    headers: alice,
    json: encryptedBody([file], {
      encryption_key_version: '3',
      encryption_password_version: '1',
      encryption_password_hash_iterations: '150000',
    }).body,
  });
  assert.is(strings.status, 201, strings.text);
  assert.is(strings.json.encryption_password_hash_iterations, 150000);
});

test('encryption_mandatory refuses a plain transfer; encryption_enabled false refuses an encrypted one; /info tells both', async () => {
  const strict = await startTestServer({ ...HEADER_SP, upload_chunk_size: S, encryption_mandatory: true });
  const off = await startTestServer({ ...HEADER_SP, upload_chunk_size: S, encryption_enabled: false });
  try {
    const plain = {
      files: [{ name: 'p', size: 1 }],
      recipients: ['bob@example.org'],
      from: 'alice@example.org',
      expires: inAWeek(),
    };
    for (const enc of [undefined, false, 0, 'false']) {
      const r = await strict.request('POST', '/transfer', { headers: alice, json: { ...plain, encryption: enc } });
      assert.equal([r.status, r.json.message, r.json.details], [400, 'transfer_must_be_encrypted', ['encryption']]);
    }
    assert.is(
      (
        await strict.request('POST', '/transfer', {
          headers: alice,
          json: encryptedBody([{ name: 'e', data: Buffer.alloc(3) }]).body,
        })
      ).status,
      201,
    );
    const g = (
      await strict.request('POST', '/guest', {
        headers: alice,
        json: { recipient: 'guest@example.org', from: 'alice@example.org' },
      })
    ).json;
    const byGuest = await strict.request('POST', `/transfer?vid=${g.token}`, { json: plain });
    assert.equal([byGuest.status, byGuest.json.message], [400, 'transfer_must_be_encrypted']);
    const info = (await strict.request('GET', '/info')).json;
    assert.equal(
      [info.encryption_enabled, info.encryption_mandatory, info.encryption_min_password_length],
      [true, true, 12],
    );
    const r = await off.request('POST', '/transfer', {
      headers: alice,
      json: encryptedBody([{ name: 'e', data: Buffer.alloc(3) }]).body,
    });
    assert.equal([r.status, r.json.message], [400, 'encryption_not_enabled']);
    assert.is((await off.request('POST', '/transfer', { headers: alice, json: plain })).status, 201);
    assert.is((await off.request('GET', '/info')).json.encryption_enabled, false);
  } finally {
    await strict.close();
    await off.close();
  }
});

test.run();
