import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { removeTempDirs, tempDir } from '../helpers/temp-dir';

test('the tests leave no folder behind: what tempDir made is removed, contents and all', () => {
  const a = tempDir('ferry-tmp-');
  const b = tempDir('ferry-tmp-');
  fs.mkdirSync(path.join(a, 'data', 'files'), { recursive: true });
  fs.writeFileSync(path.join(a, 'data', 'files', 'x'), 'bytes');
  fs.rmSync(b, { recursive: true }); // one a test removed itself
  removeTempDirs();
  assert.not.ok(fs.existsSync(a));
  assert.not.ok(fs.existsSync(b));
});

test.run();
