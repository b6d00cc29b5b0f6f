#!/usr/bin/env node
// Runs the linter, then every test, and prints one closing line `tests: N passed, M failed`, counted from uvu's
// own summaries (the lint counts as one). Exit code 1 when anything failed. Nothing is skipped: the binary is
// built when it is missing or stale, and a system part a group needs (test/helpers/system/parts.ts) that cannot
// be found is installed when this process may (root, apt-get present, FERRY_TEST_INSTALL not 0), and otherwise
// fails that group with the command that installs it.
// The `unit` group's files run in one process (test/helpers/run-in-one-process.ts), every other file in a process of
// its own.
// Usage: node scripts/run-tests.mjs [group-or-file ...]   (groups: lint unit integration http http-postgres http-s3
// adversarial adversarial-postgres storage e2e browser, all of them when none is named)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { reexecOnProjectNode } from './project-node.mjs';

// Tests run on the Node that ships inside dist/ferry, whichever `node` started this script.
await reexecOnProjectNode();

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const ALL = [
  'lint',
  'unit',
  'integration',
  'http',
  'http-postgres',
  'http-s3',
  'adversarial',
  'adversarial-postgres',
  'storage',
  'e2e',
  'browser',
];
// The HTTP suite runs three times: on SQLite and the filesystem, on a real PostgreSQL the tests start
// (test/helpers/system/postgres.ts), and with file data on a real S3 server (test/helpers/system/s3.ts). The few
// tests about the filesystem store itself (a file cut short on disk) choose that store whatever the group. The S3
// group shares one server among its files (`sharedS3`; each test server has a prefix of its own), instead of
// starting Swift once per file. A file run alone follows FERRY_TEST_DB and FERRY_TEST_STORAGE from the environment.
// Of the adversarial suite, the races the database decides (signed-chunks) and the hardening-* files (full
// disks, batches of statements, guests withdrawn in a unit of work) run on PostgreSQL too.
// The unit group is pure code on fakes, milliseconds a file: its files share one process and one `tsx` start
// (about 1.5 s a file under load otherwise), and the runner there charges to each file what it leaves behind.
const VARIANTS = {
  unit: { dir: 'unit', env: {}, oneProcess: true },
  'http-postgres': { dir: 'http', env: { FERRY_TEST_DB: 'postgres' }, onceOnly: true },
  'adversarial-postgres': {
    dir: 'adversarial',
    env: { FERRY_TEST_DB: 'postgres' },
    only: /^(signed-chunks|hardening-)/,
  },
  'http-s3': { dir: 'http', env: { FERRY_TEST_STORAGE: 's3' }, sharedS3: true, onceOnly: true },
};
const args = process.argv.slice(2);
const groups = args.length ? args : ALL;
let passed = 0;
let failed = 0;

// Suites that start dist/ferry: e2e, browser, and a few adversarial ones that crash the process on purpose.
// build.sh is a quick check when nothing changed, and rebuilds when any source did.
const needsBinary = groups.some(
  (g) => /^(e2e|browser|adversarial)\b/.test(g) || /test\/(e2e|browser|adversarial)\//.test(g),
);
if (needsBinary) {
  const started = Date.now();
  const b = spawnSync(path.join(root, 'build.sh'), [], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) {
    failed += 1;
    console.log(
      `build.sh failed (exit ${b.status}); the suites that run dist/ferry will fail too:\n${b.stdout}${b.stderr}`,
    );
  } else {
    console.log(`${b.stdout.trim().split('\n').pop()} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  }
}

const { tsImport } = await import('tsx/esm/api');
const { partsOfGroup, MissingPart, installMissingPart } = await tsImport(
  '../test/helpers/system/parts.ts',
  import.meta.url,
);
const { RESULT_PREFIX } = await tsImport('../test/helpers/run-in-one-process.ts', import.meta.url);
// The http files the variants cannot change (they start no test server, or choose their database and store
// themselves) run in `http` only; `onceOnly` groups leave them out.
const { SAME_IN_EVERY_VARIANT } = await tsImport('../test/helpers/same-in-every-variant.ts', import.meta.url);

/**
 * The S3 server a group's files share (test/helpers/system/s3.ts, SHARED_S3_ENV), started before its first file;
 * its env for the files, and how to stop it. A server that does not start fails the group with its reason.
 */
async function sharedS3() {
  const { startS3, sharedS3Env, SHARED_S3_ENV } = await tsImport('../test/helpers/system/s3.ts', import.meta.url);
  const server = await startS3();
  return { env: { [SHARED_S3_ENV]: sharedS3Env(server) }, stop: () => server.stop() };
}

/**
 * Finds every system part the group needs; prints what was found, or installs what is missing when this process
 * may (test/helpers/system/parts.ts, installMissingPart), or prints how to install it.
 */
async function partsReady(group) {
  let ok = true;
  for (const find of partsOfGroup[group] ?? []) {
    try {
      const { part, found } = await find();
      console.log(`${group}: ${part} ${found}`);
    } catch (e) {
      if (!(e instanceof MissingPart)) throw e;
      const installed = installMissingPart(e, (line) => console.log(`${group}: ${line}`));
      const again = installed ? await find().catch((e2) => e2) : e;
      if (again instanceof Error) {
        ok = false;
        console.log(`${group}: FAILED, ${again.message}`);
      } else {
        console.log(`${group}: ${again.part} ${again.found}`);
      }
    }
  }
  return ok;
}

/** The formatter, the linter and the import rules (`npm run lint`): one check, counted as one test. */
function lint() {
  const started = Date.now();
  const r = spawnSync('npm', ['run', '-s', 'lint'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status === 0) {
    passed += 1;
    console.log(`lint: clean (${seconds}s)`);
  } else {
    failed += 1;
    console.log(
      `lint: FAILED (exit ${r.status}, ${seconds}s); \`npm run format\` fixes the format\n${`${r.stdout}${r.stderr}`.slice(-6000)}`,
    );
  }
}

for (const group of groups) {
  if (group === 'lint') {
    lint();
    continue;
  }
  const variant = VARIANTS[group] ?? { dir: group, env: {} };
  const dir = path.join(root, 'test', variant.dir);
  const isDir = fs.existsSync(dir) && fs.statSync(dir).isDirectory();
  const files = isDir
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.test.ts') && (!variant.only || variant.only.test(f)))
        .filter((f) => !variant.onceOnly || !(f in SAME_IN_EVERY_VARIANT))
        .sort()
        .map((f) => path.join(dir, f))
    : [path.resolve(group)];
  const groupName = isDir ? group : path.basename(path.dirname(path.resolve(group)));
  if (!(await partsReady(groupName))) {
    failed += 1;
    continue;
  }
  let shared = null;
  if (variant.sharedS3) {
    try {
      shared = await sharedS3();
    } catch (e) {
      failed += 1;
      console.log(`${group}: FAILED, ${e instanceof Error ? e.message : e}`);
      continue;
    }
  }
  try {
    if (variant.oneProcess && isDir) runInOneProcess(files);
    else await runFiles(files, variant, shared?.env ?? {});
  } finally {
    await shared?.stop();
  }
}

/**
 * Every file in one process (test/helpers/run-in-one-process.ts), which writes one result line a file; the counts
 * and the output of a failed file are printed as for a file run alone. A file with no result line is where the
 * process died: it and every file after it fail.
 */
function runInOneProcess(files) {
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/helpers/run-in-one-process.ts', ...files], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 15 * 60 * 1000,
  });
  const results = new Map();
  const other = [];
  for (const line of `${r.stdout ?? ''}`.split('\n')) {
    if (line.startsWith(RESULT_PREFIX)) {
      const result = JSON.parse(line.slice(RESULT_PREFIX.length));
      results.set(result.file, result);
    } else other.push(line);
  }
  const rest = `${other.join('\n')}${r.stderr ?? ''}`;
  let crashed = false;
  for (const file of files) {
    const rel = path.relative(root, file);
    const result = results.get(file);
    if (!result) {
      failed += 1;
      console.log(
        crashed
          ? `${rel}: not run (the process ended before it)`
          : `${rel}: crashed (exit ${r.status ?? r.signal})\n${rest.slice(-4000)}`,
      );
      crashed = true;
      continue;
    }
    passed += result.passed;
    failed += result.total - result.passed;
    const bad = result.total > result.passed || result.skipped > 0 || result.problems.length > 0;
    if (bad && result.total === result.passed) failed += 1;
    console.log(
      `${rel}: ${result.passed}/${result.total} passed${result.skipped ? `, ${result.skipped} SKIPPED (counted as failed)` : ''} (${result.seconds.toFixed(2)}s)`,
    );
    if (bad) console.log(result.output);
  }
  if (!crashed && r.status !== 0) {
    failed += 1;
    console.log(`the unit process failed at its end (exit ${r.status ?? r.signal})\n${rest.slice(-4000)}`);
  }
  console.log(`${files.length} files in one process (${((Date.now() - started) / 1000).toFixed(1)}s)`);
}

/** Each file of a group in a process of its own, with the group's environment; counts what uvu reports. */
async function runFiles(files, variant, extraEnv) {
  for (const file of files) {
    const rel =
      path.relative(root, file) +
      (Object.keys(variant.env).length ? ` [${Object.values(variant.env).join(', ')}]` : '');
    if (!fs.existsSync(file)) {
      failed += 1;
      console.log(`${rel}: no such test file or group (groups: ${ALL.join(' ')})`);
      continue;
    }
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ...variant.env, ...extraEnv, FORCE_COLOR: '0' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 15 * 60 * 1000,
    });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? NaN);
    const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? NaN);
    const skipped = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0);
    if (Number.isNaN(total) || Number.isNaN(ok)) {
      failed += 1;
      console.log(`${rel}: crashed (exit ${r.status ?? r.signal})\n${out.slice(-4000)}`);
      continue;
    }
    // A skipped test is a test not run: it counts as failed.
    passed += ok;
    failed += total - ok;
    const bad = total - ok > 0 || r.status !== 0;
    console.log(
      `${rel}: ${ok}/${total} passed${skipped ? `, ${skipped} SKIPPED (counted as failed)` : ''} (${((Date.now() - started) / 1000).toFixed(1)}s)`,
    );
    if (bad) {
      if (total - ok === 0) failed += 1;
      console.log(out.slice(-6000));
    }
  }
}
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
