import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { checkConfig, validateConfig, ConfigError } from '../../src/config/validate';
import { defaultConfig } from '../../src/config/defaults';
import { loadConfig } from '../../src/config/load';
import { tempDir } from '../helpers/server';

test('an empty config is the embedded defaults', () => {
  const c = validateConfig({}, 't');
  assert.equal(c, defaultConfig());
});

test('config.example.json lists every key with its default', () => {
  const example = JSON.parse(fs.readFileSync(path.join(__dirname, '../../config.example.json'), 'utf8'));
  const d = defaultConfig() as unknown as Record<string, unknown>;
  assert.equal(Object.keys(example).sort(), Object.keys(d).sort());
  assert.equal(checkConfig(example), []);
  const merged = validateConfig(example, 'example') as unknown as Record<string, unknown>;
  for (const key of Object.keys(d)) if (key !== 'mail') assert.equal(merged[key], d[key], key);
});

test('every problem is reported at once, with its path', () => {
  const problems = checkConfig({
    base_url: 'ftp://x',
    listen: { port: 'eighty' },
    upload_chunk_size: -1,
    colour: 'blue',
    auth: { sp: { type: 'header', uid_header: 'X-User' }, signature_max_age_s: 1.5 },
    mail: { transport: 42 },
  });
  const text = problems.join('\n');
  assert.ok(problems.length >= 6, text);
  for (const path of [
    'base_url',
    'listen.port',
    'upload_chunk_size',
    'colour: unknown key',
    'auth.signature_max_age_s',
    'mail.transport',
  ]) {
    assert.ok(text.includes(path), `missing ${path} in\n${text}`);
  }
});

test('unknown nested keys are refused', () => {
  const problems = checkConfig({ listen: { hots: 'x' }, auth: { sp: { type: 'local', extra: 1 } } });
  assert.ok(
    problems.some((p) => p.startsWith('listen.hots')),
    problems.join(),
  );
  assert.ok(
    problems.some((p) => p.startsWith('auth.sp.extra')),
    problems.join(),
  );
});

test('metrics: null, or the addresses and CIDR ranges allowed to scrape; anything else refused by name', () => {
  assert.equal(checkConfig({ metrics: null }), []);
  assert.equal(checkConfig({ metrics: { allow: ['127.0.0.1', '::1', '10.0.0.0/8', 'fd00::/64'] } }), []);
  assert.is(defaultConfig().metrics, null);
  const problems = checkConfig({
    metrics: { allow: ['999.1.1.1', '10.0.0.0/33', 'example.org', '::1/129', '1.2.3.4/8/1', 7] },
  });
  assert.is(problems.length, 6, problems.join('\n'));
  for (let i = 0; i < 6; i++)
    assert.ok(
      problems.some((p) => p.startsWith(`metrics.allow[${i}]`) || p.startsWith(`metrics.allow.${i}`)),
      problems.join('\n'),
    );
  assert.ok(checkConfig({ metrics: { allow: ['127.0.0.1'], open: true } }).some((p) => p.includes('open')));
  assert.ok(checkConfig({ metrics: true }).length > 0);
});

test('cross-key rules: defaults may not exceed maxima', () => {
  const problems = checkConfig({ default_transfer_days_valid: 30, max_transfer_days_valid: 20 });
  assert.equal(problems, ['default_transfer_days_valid: must not exceed max_transfer_days_valid']);
});

test('the sink gets its defaults under data_dir', () => {
  const c = validateConfig({ data_dir: '/srv/ferry', mail: { sink: {} } }, 't');
  assert.equal(c.mail.sink, { host: '127.0.0.1', port: 2525, dir: '/srv/ferry/mail-sink' });
});

test('loadConfig names the file in its error, and reports invalid JSON', () => {
  const dir = tempDir();
  const file = path.join(dir, 'ferry.json');
  fs.writeFileSync(file, '{"base_url": ');
  try {
    loadConfig(file);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, ConfigError);
    assert.ok((e as Error).message.includes(file));
    assert.ok((e as Error).message.includes('not valid JSON'));
  }
  fs.writeFileSync(file, JSON.stringify({ max_transfer_files: 0 }));
  assert.throws(() => loadConfig(file), /max_transfer_files/);
  assert.throws(() => loadConfig(path.join(dir, 'nope.json')), /cannot read the file: ENOENT/);
});

test('storage: the S3 store with defaults, credentials from the environment, and clear problems', () => {
  const dir = tempDir();
  const file = path.join(dir, 'ferry.json');
  fs.writeFileSync(
    file,
    JSON.stringify({ storage: { type: 's3', endpoint: 'http://10.0.0.5:7480', bucket: 'ferry' } }),
  );
  assert.throws(
    () => loadConfig(file, {}),
    /storage: S3 credentials missing: set FERRY_S3_ACCESS_KEY_ID and FERRY_S3_SECRET_ACCESS_KEY/,
  );
  const c = loadConfig(file, { FERRY_S3_ACCESS_KEY_ID: 'AK', FERRY_S3_SECRET_ACCESS_KEY: 'SK' }).config;
  assert.equal(c.storage, {
    type: 's3',
    endpoint: 'http://10.0.0.5:7480',
    bucket: 'ferry',
    region: 'us-east-1',
    prefix: '',
    force_path_style: true,
    access_key_id: 'AK',
    secret_access_key: 'SK',
  });
  assert.equal(
    checkConfig({
      storage: {
        type: 's3',
        endpoint: 'ftp://x',
        bucket: 'B!',
        prefix: '/abs',
        force_path_style: 'yes',
        access_key_id: 'a',
        secret_access_key: 's',
        colour: 1,
      },
    }),
    [
      'storage.endpoint: an http(s)://host:port URL, got "ftp://x"',
      'storage.bucket: a bucket name (3 to 63 of a-z, 0-9, dot, hyphen), got "B!"',
      'storage.prefix: empty, or folder names ending in "/" such as "ferry/", got "/abs"',
      'storage.force_path_style: expected true or false, got "yes"',
      'storage.colour: unknown key',
    ],
  );
  assert.equal(checkConfig({ storage: { type: 'nfs' } }), ['storage.type: must be one of "fs", "s3", got "nfs"']);
  assert.equal(checkConfig({ storage: { type: 's3' } }), ['storage.endpoint: required', 'storage.bucket: required']);
  assert.equal(validateConfig({}, 't').storage, { type: 'fs' });
});

test.run();
