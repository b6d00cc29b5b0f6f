import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FileRecord, Transfer } from '../../src/domain/model';
import {
  presentFile,
  presentFileEncryptionExtended,
  presentTransferEncryption,
} from '../../src/http/presenters/transfer';

// What clients are told about an encrypted transfer: the fields POST /transfer took, the server's salt, and per
// file what FileSender's GET /transfer/fileidsextended lists (both of its spellings). Never a password or key.
const NOW = 1_900_000_000;
const plainTransfer: Transfer = {
  id: 7,
  userId: 'alice',
  userEmail: 'alice@example.org',
  guestId: null,
  subject: null,
  message: null,
  options: [],
  status: 'available',
  lang: null,
  created: NOW,
  expires: NOW + 86400,
  expiryExtensionsUsed: 0,
  madeAvailable: NOW,
  closed: null,
  closedReason: null,
  roundtripToken: null,
  encryption: null,
};
const encrypted: Transfer = {
  ...plainTransfer,
  encryption: {
    keyVersion: 3,
    passwordVersion: 2,
    passwordEncoding: 'base64',
    hashIterations: 150000,
    clientEntropy: null,
    salt: 'S'.repeat(32),
    chunkSize: 5242880,
  },
};
const file: FileRecord = {
  id: 1,
  transferId: 7,
  uid: 'u',
  name: 'a.bin',
  size: 5242881,
  mimeType: null,
  cid: null,
  received: 5242881,
  ranges: [[0, 5242881]],
  complete: true,
  crc32: null,
  sha256: null,
  created: NOW,
  deleted: null,
  iv: 'q83vASNFZ4mrze8B',
  aead: 'e30=',
  storeUpload: null,
};

test('fileidsextended fields of an encrypted file: sizes count 32 octets per chunk, both spellings agree', () => {
  const x = presentFileEncryptionExtended(encrypted, file) as Record<string, unknown>;
  assert.is(x.encrypted, true);
  assert.is(x['encrypted-size'], 5242881 + 64);
  for (const k of [
    'encrypted-size',
    'key-version',
    'key-salt',
    'password-version',
    'password-encoding',
    'password-hash-iterations',
    'client-entropy',
  ]) {
    assert.is(x[k.replace(/-/g, '_')], x[k], k);
  }
  assert.equal(
    [x['key-version'], x['key-salt'], x['password-version'], x['password-encoding'], x['password-hash-iterations']],
    [3, 'S'.repeat(32), 2, 'base64', 150000],
  );
  assert.equal([x.fileiv, x.fileaead], ['q83vASNFZ4mrze8B', 'e30=']);
});

test('a plain transfer: encryption false, every encryption field null, no iv in the File', () => {
  const x = presentFileEncryptionExtended(plainTransfer, { ...file, iv: null, aead: null }) as Record<string, unknown>;
  assert.is(x.encrypted, false);
  for (const [k, v] of Object.entries(x)) if (k !== 'encrypted') assert.is(v, null, k);
  assert.equal(presentTransferEncryption(plainTransfer), { encryption: false });
  assert.not.ok('iv' in presentFile({ ...file, iv: null, aead: null }));
});

test('nothing presented names a password or a key', () => {
  const all = JSON.stringify([
    presentTransferEncryption(encrypted),
    presentFileEncryptionExtended(encrypted, file),
    presentFile(file),
  ]);
  assert.not.match(all, /"(password|key)"/);
});

test.run();
