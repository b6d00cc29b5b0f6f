import { test } from 'uvu';
import * as assert from 'uvu/assert';

// Run after leaks.ts: what that file left in the environment is gone (test/integration/run-in-one-process.test.ts).
test('the environment variable and the global an earlier file set are gone', () => {
  assert.is(process.env.FERRY_LEAK_FIXTURE, undefined);
  assert.is((globalThis as Record<string, unknown>).ferryLeakFixture, undefined);
});

test.run();
