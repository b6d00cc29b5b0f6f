import { test } from 'uvu';
import * as assert from 'uvu/assert';

// One test of two fails (test/integration/run-in-one-process.test.ts).
test('passes', () => {
  assert.ok(true);
});

test('fails on purpose', () => {
  assert.is(1, 2, 'one is not two');
});

test.run();
