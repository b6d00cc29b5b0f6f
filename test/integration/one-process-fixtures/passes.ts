import { test } from 'uvu';
import * as assert from 'uvu/assert';

// A file that passes and leaves nothing behind (test/integration/run-in-one-process.test.ts).
test('passes', () => {
  assert.is(1 + 1, 2);
});

test.run();
