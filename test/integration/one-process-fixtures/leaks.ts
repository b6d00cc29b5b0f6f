import { test } from 'uvu';
import * as assert from 'uvu/assert';

// Every test passes, but the file leaves behind what would reach the next file in the same process
// (test/integration/run-in-one-process.test.ts).
test('sets an environment variable, a global, an exit code, and a timer it never clears', () => {
  process.env.FERRY_LEAK_FIXTURE = 'left';
  (globalThis as Record<string, unknown>).ferryLeakFixture = true;
  process.exitCode = 3;
  setTimeout(() => {}, 60_000);
  assert.ok(true);
});

test.run();
