import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { checkConfig, validateConfig } from '../../src/config/validate';
import { loadConfig } from '../../src/config/load';
import { describeStore, filesOutsideDataDir, type StorageConfig, type StoreSchema } from '../../src/config/stores';
import { registerStoreKind, type StoreFactory } from '../../src/storage/kinds';
import { FsFileStore, storedFilePath } from '../../src/storage/fs-store';
import { z } from 'zod';
import { zObject, zStr } from '../../src/config/zod-checks';
import type { Logger } from '../../src/log';
import { HEADER_SP, startTestServer } from '../helpers/server';
import { availableTransfer } from '../helpers/factories';
import { tempDir } from '../helpers/temp-dir';
import { runCli } from '../../src/cli/program';

// A kind of store made up here, as a module adding Azure Blob would be: files in a folder of their own. It is
// registered once, and nothing else in ferry is changed for the config, the app and the backup to take it.
const scratchBlock = zObject({
  type: z.literal('scratch'),
  folder: zStr(/^\//, 'an absolute path'),
  label: zStr().default('scratch'),
});
type StorageScratch = z.output<typeof scratchBlock>;
const scratchSchema: StoreSchema<typeof scratchBlock> = {
  schema: scratchBlock,
  problems: (c) => (c.folder === '/' ? ['storage: the scratch folder may not be /'] : []),
  fromEnv: (block, env) => (env.FERRY_SCRATCH_FOLDER ? { ...block, folder: env.FERRY_SCRATCH_FOLDER } : block),
  describe: (c) => `${c.label} folder ${c.folder}`,
  outsideDataDir: (c) => `in the ${c.label} folder ${c.folder}`,
};
const built: StorageScratch[] = [];
const scratchFactory: StoreFactory<StorageScratch> = async (c) => {
  built.push(c);
  return new FsFileStore(c.folder);
};
registerStoreKind('scratch', scratchSchema, scratchFactory);
/** The config type knows the built-in kinds only: a block of the made-up kind passes as one. */
const asStorage = (c: StorageScratch) => c as unknown as StorageConfig;

test('a registered kind of store: its keys are checked, its defaults filled in, its rules and variables applied', () => {
  assert.equal(checkConfig({ storage: { type: 'scratch', folder: '/srv/scratch' } }), []);
  assert.equal(checkConfig({ storage: { type: 'scratch' } }), ['storage.folder: required']);
  assert.equal(checkConfig({ storage: { type: 'scratch', folder: 'rel', colour: 1 } }), [
    'storage.folder: an absolute path, got "rel"',
    'storage.colour: unknown key',
  ]);
  assert.equal(checkConfig({ storage: { type: 'scratch', folder: '/' } }), [
    'storage: the scratch folder may not be /',
  ]);
  assert.equal(checkConfig({ storage: { type: 'nfs' } }), [
    'storage.type: must be one of "fs", "s3", "scratch", got "nfs"',
  ]);
  assert.equal(validateConfig({ storage: { type: 'scratch', folder: '/srv/x' } }, 't').storage, {
    type: 'scratch',
    folder: '/srv/x',
    label: 'scratch',
  } as unknown as StorageConfig);

  const file = path.join(tempDir(), 'ferry.json');
  fs.writeFileSync(file, JSON.stringify({ storage: { type: 'scratch', folder: '/srv/x' } }));
  const c = loadConfig(file, { FERRY_SCRATCH_FOLDER: '/srv/from-env' }).config;
  assert.equal((c.storage as unknown as StorageScratch).folder, '/srv/from-env');
});

test('a registered kind of store: the start-up line names it, and ferry backup --files knows its files are elsewhere', () => {
  const c = asStorage({ type: 'scratch', folder: '/srv/x', label: 'spare' });
  assert.is(describeStore(c, '/data'), 'spare folder /srv/x');
  assert.is(filesOutsideDataDir(c), 'in the spare folder /srv/x');
  assert.is(filesOutsideDataDir({ type: 'fs' }), null);
  assert.is(describeStore({ type: 'fs' }, '/data'), path.join('/data', 'files'));
});

test('a registered kind of store: the server builds it with its factory and keeps the files there', async () => {
  const folder = path.join(tempDir(), 'scratch');
  const lines: string[] = [];
  const log: Logger = { info: (l) => lines.push(l), error: (l) => lines.push(l) };
  const s = await startTestServer({ ...HEADER_SP, storage: { type: 'scratch', folder } }, { log });
  try {
    assert.equal(built.at(-1), { type: 'scratch', folder, label: 'scratch' });
    assert.ok(lines.includes(`files: scratch folder ${folder}`), lines.join('\n'));
    const data = Buffer.from('scratch kind');
    const { t, token } = await availableTransfer(s, [{ name: 'a.txt', data }]);
    const f = t.files[0];
    assert.equal(fs.readFileSync(storedFilePath(folder, t.id, f.uid)), data);
    assert.not.ok(fs.existsSync(path.join(s.dir, 'data', 'files', String(t.id))));
    const d = await fetch(`${s.url}/download?token=${token}&files_ids=${f.id}`);
    assert.is(d.status, 200);
    assert.equal(Buffer.from(await d.arrayBuffer()), data);
  } finally {
    await s.close();
  }
});

/** `ferry backup <dir> --files` on a config file holding `storage`: exit code and error output. */
async function backupFiles(storage: Record<string, unknown>) {
  const dir = tempDir();
  const file = path.join(dir, 'ferry.json');
  fs.writeFileSync(file, JSON.stringify({ data_dir: path.join(dir, 'data'), storage }));
  const err: string[] = [];
  const code = await runCli(['backup', path.join(dir, 'out'), '--files', '-c', file], {
    out: () => {},
    err: (t) => err.push(t),
    readStdin: async () => '',
  });
  return { code, err: err.join('\n'), made: fs.existsSync(path.join(dir, 'out')) };
}

test('ferry backup --files refuses a store whose files are not under data_dir, naming where they are', async () => {
  const scratch = await backupFiles({ type: 'scratch', folder: '/srv/x' });
  assert.is(scratch.code, 1);
  assert.match(scratch.err, 'the file data is in the scratch folder /srv/x: back it up with the store');
  assert.not.ok(scratch.made);
  const s3 = await backupFiles({
    type: 's3',
    endpoint: 'http://127.0.0.1:9',
    bucket: 'ferry',
    prefix: 'p/',
    access_key_id: 'a',
    secret_access_key: 's',
  });
  assert.is(s3.code, 1);
  assert.match(s3.err, 'the file data is in the S3 bucket ferry (prefix "p/"): back it up with the store');
});

test.run();
