import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MissingPart, SWIFT_INSTALL, installMissingPart, mayInstallPackages } from '../helpers/system/parts';
import { POSTGRES_INSTALL } from '../helpers/system/postgres';

// `npm test` on a fresh machine: a missing system part is installed by the runner when it may (root, apt-get,
// not told otherwise), and otherwise its group fails with the command that installs it.

test('a missing part names the Debian packages of its install command', () => {
  assert.equal(new MissingPart('s3 server', SWIFT_INSTALL).packages, [
    'swift-proxy',
    'swift-object',
    'swift-container',
    'swift-account',
    'python3-swift',
    'memcached',
  ]);
  assert.equal(new MissingPart('postgresql', POSTGRES_INSTALL).packages, ['postgresql']);
  assert.equal(new MissingPart('chromium', 'apt-get install -y chromium (or `npm ci`, which installs it)').packages, [
    'chromium',
  ]);
  assert.equal(new MissingPart('chromium at X', 'apt-get install -y chromium, or unset CHROMIUM_PATH').packages, [
    'chromium',
  ]);
  assert.equal(new MissingPart('something', 'see the manual').packages, []);
});

test('FERRY_TEST_INSTALL=0 keeps the runner from installing anything: the part stays missing, with its command', () => {
  const before = process.env.FERRY_TEST_INSTALL;
  process.env.FERRY_TEST_INSTALL = '0';
  try {
    assert.is(mayInstallPackages(), false);
    const said: string[] = [];
    assert.is(
      installMissingPart(new MissingPart('postgresql', POSTGRES_INSTALL), (l) => said.push(l)),
      false,
    );
    assert.equal(said, []);
  } finally {
    if (before === undefined) delete process.env.FERRY_TEST_INSTALL;
    else process.env.FERRY_TEST_INSTALL = before;
  }
});

test('only root may install, and only where apt-get is', () => {
  const before = process.env.FERRY_TEST_INSTALL;
  delete process.env.FERRY_TEST_INSTALL;
  try {
    const root = process.getuid?.() === 0;
    const fs = require('node:fs') as typeof import('node:fs');
    assert.is(mayInstallPackages(), root && fs.existsSync('/usr/bin/apt-get'));
  } finally {
    if (before !== undefined) process.env.FERRY_TEST_INSTALL = before;
  }
});

test('a part without an apt-get command is never installed', () => {
  assert.is(
    installMissingPart(new MissingPart('something', 'see the manual'), () => {}),
    false,
  );
});

test.run();
