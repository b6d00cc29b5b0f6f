import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { type FileResult, RESULT_PREFIX } from '../helpers/run-in-one-process';

// The unit group's files share one process (test/helpers/run-in-one-process.ts, started by scripts/run-tests.mjs):
// each file still gets its own counts and output, and what one file leaves behind fails that file and does not
// reach the next.

const fixtures = path.join(__dirname, 'one-process-fixtures');

/** Runs the fixture files, in this order, in one process; their results by file name. */
function runTogether(...names: string[]): Map<string, FileResult> {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/run-in-one-process.ts', ...names.map((n) => path.join(fixtures, `${n}.ts`))],
    { cwd: path.resolve(__dirname, '../..'), encoding: 'utf8', timeout: 120_000 },
  );
  assert.is(r.status, 0, r.stderr);
  const results = r.stdout
    .split('\n')
    .filter((line) => line.startsWith(RESULT_PREFIX))
    .map((line) => JSON.parse(line.slice(RESULT_PREFIX.length)) as FileResult);
  return new Map(results.map((x) => [path.basename(x.file, '.ts'), x]));
}

test('each file gets its own counts; a failing one its output, a passing one none', () => {
  const results = runTogether('passes', 'fails');
  const passes = results.get('passes')!;
  assert.equal([passes.passed, passes.total, passes.problems, passes.output], [1, 1, [], '']);
  const fails = results.get('fails')!;
  assert.equal([fails.passed, fails.total], [1, 2]);
  assert.match(fails.output, 'fails on purpose');
  assert.match(fails.output, 'one is not two');
});

test('a file that leaves an env variable, a global, an exit code or a timer fails, and the next file sees none of it', () => {
  const results = runTogether('leaks', 'sees-env');
  const leaks = results.get('leaks')!;
  assert.equal([leaks.passed, leaks.total], [1, 1], 'its tests passed');
  assert.equal(leaks.problems, [
    'left running when its tests ended: 1 Timeout',
    'left process.env.FERRY_LEAK_FIXTURE changed',
    'left a global `ferryLeakFixture`',
    'set process.exitCode to 3',
  ]);
  const next = results.get('sees-env')!;
  assert.equal([next.passed, next.total, next.problems], [1, 1, []], next.output);
});

test('a file that throws on import fails with its error, and the files after it still run', () => {
  const results = runTogether('crashes', 'passes');
  const crashes = results.get('crashes')!;
  assert.is(crashes.problems.length, 1);
  assert.match(crashes.problems[0], /^crashed on import: Error: the fixture crashes on import/);
  assert.equal([results.get('passes')!.passed, results.get('passes')!.total], [1, 1]);
});

test.run();
