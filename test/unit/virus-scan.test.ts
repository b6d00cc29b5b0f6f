import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scanOutcome } from '../../src/domain/virus-scans';
import { parseAnswer } from '../../src/antivirus/clamd';

// The rules of docs/sharing.md, Virus scanning, and clamd's answers as the adapter reads them. The scans
// themselves run against a real clamd: test/http/virus-scan.test.ts, test/storage/virus-scan-s3.test.ts.

const file = { id: 1 } as never;

test('an infected file decides before a failure; on_infected and on_error choose what follows', () => {
  const found = [{ file, signature: 'X' }];
  assert.is(scanOutcome([], null, { onInfected: 'block', onError: 'hold' }), 'release');
  assert.is(scanOutcome(found, null, { onInfected: 'block', onError: 'hold' }), 'block');
  assert.is(scanOutcome(found, 'down', { onInfected: 'flag', onError: 'hold' }), 'flag');
  assert.is(scanOutcome([], 'down', { onInfected: 'block', onError: 'hold' }), 'hold');
  assert.is(scanOutcome([], 'down', { onInfected: 'block', onError: 'allow' }), 'allow');
});

test("clamd's answers: OK, FOUND with the signature, anything else no verdict", () => {
  assert.equal(parseAnswer('stream: OK'), { clean: true });
  assert.equal(parseAnswer('stream: Win.Test.EICAR_HDB-1 FOUND'), { clean: false, signature: 'Win.Test.EICAR_HDB-1' });
  assert.is(parseAnswer('INSTREAM size limit exceeded. ERROR'), null);
  assert.is(parseAnswer('stream: OK FOUND ERROR'), null);
});

test.run();
