import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Transfer } from '../../src/domain/model';
import {
  presentFile,
  presentFileEncryptionExtended,
  presentTransferEncryption,
} from '../../src/http/presenters/transfer';
import { fileRecord, transferRecord } from '../helpers/domain-factories';

// What clients are told about an encrypted transfer: the fields POST /transfer took, the server's salt, and per
// file what FileSender's GET /transfer/fileidsextended lists (both of its spellings). Never a password or key.
const plainTransfer = transferRecord();
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
const file = fileRecord({ size: 5242881, iv: 'q83vASNFZ4mrze8B', aead: 'e30=' });

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
