import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requestId } from '../../src/http/request-id';

test('request ids are 16 hex digits, never repeated, across several batches of random bytes', () => {
  const seen = new Set<string>();
  // 2,000 ids span four batches of 512: a batch handed out twice, or a slice not advanced, repeats ids.
  for (let i = 0; i < 2000; i++) {
    const id = requestId();
    assert.match(id, /^[0-9a-f]{16}$/);
    seen.add(id);
  }
  assert.is(seen.size, 2000);
});

test.run();
