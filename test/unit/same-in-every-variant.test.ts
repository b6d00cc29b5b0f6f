import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/temp-dir';
import { followsVariant, SAME_IN_EVERY_VARIANT } from '../helpers/same-in-every-variant';

// The `http` files the runner runs once instead of three times (test/helpers/same-in-every-variant.ts) really are
// the same in every variant: none reaches the test server's database or store, or the variables that choose them.

const http = path.resolve(__dirname, '../http');

test('every file on the list exists and reaches nothing that FERRY_TEST_DB or FERRY_TEST_STORAGE changes', () => {
  for (const name of Object.keys(SAME_IN_EVERY_VARIANT)) {
    const file = path.join(http, name);
    assert.ok(fs.existsSync(file), `${name} is listed but not in test/http`);
    assert.is(followsVariant(file), null, name);
  }
});

test('the check finds a file that starts a test server, directly or through a helper', () => {
  assert.match(followsVariant(path.join(http, 'foundation.test.ts')) ?? '', /startTestServer/);
  const dir = tempDir();
  const file = path.join(dir, 'through-a-helper.test.ts');
  const helper = path.relative(dir, path.resolve(__dirname, '../helpers/client-world'));
  fs.writeFileSync(file, `import { clientWorld } from '${helper}';\nclientWorld;\n`);
  assert.match(followsVariant(file) ?? '', /client-world\.ts uses startTestServer/);
});

test.run();
