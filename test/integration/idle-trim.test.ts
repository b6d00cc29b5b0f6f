import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import v8 from 'node:v8';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { IdleTrim } from '../../src/util/collector';

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

/** Full collections V8 reports from now until the returned function is called. */
function countMajors(): () => Promise<number> {
  let majors = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        majors++;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  return async () => {
    await sleep(50); // GC entries are delivered asynchronously
    obs.disconnect();
    return majors;
  };
}

/** Short-lived objects, some surviving a scavenge or two, the way request handling makes them: the young generation grows. */
function churn(): void {
  let keep: object[] = [];
  for (let i = 0; i < 4_000_000; i++) {
    const o = { i, s: `x${i % 1000}` };
    if (i % 50 === 0) keep.push(o);
    if (keep.length > 40_000) keep = [];
  }
}

test('after a burst, once quiet, one collection gives back the grown young generation', async () => {
  churn();
  const grown = newSpace();
  assert.ok(grown > 4 * MiB, `the young generation grew to ${(grown / MiB).toFixed(1)} MiB`);

  const trim = new IdleTrim(300);
  const majors = countMajors();
  // Still busy: each call puts the trim off.
  for (let i = 0; i < 4; i++) {
    trim.busy();
    await sleep(100);
  }
  assert.ok(newSpace() >= grown / 2, 'nothing trimmed while busy');
  await sleep(500);
  const n = await majors();
  assert.ok(n >= 1 && n <= 3, `${n} full collections (a last-resort collection runs up to a few)`);
  assert.ok(newSpace() <= 2 * MiB, `the young generation is back to ${(newSpace() / MiB).toFixed(1)} MiB`);
});

test('a pending trim keeps no process alive (a CLI command exits when its work is done)', () => {
  const module = path.resolve(__dirname, '../../src/util/collector.ts');
  const script = `import(${JSON.stringify(module)}).then((m) => new m.IdleTrim(60_000).busy())`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  assert.is(r.signal, null, "the process had to be killed: the trim's timer held it");
  assert.is(r.status, 0, r.stderr);
});

test.run();
