import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { SocketGarbage } from '../../src/util/socket-garbage';

const MiB = 1024 * 1024;

/** The garbage collections V8 reports while `fn` runs, by kind (V8 may add one of its own: asserts allow it). */
async function collections(fn: () => void): Promise<{ minor: number; major: number }> {
  const seen = { minor: 0, major: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) seen.minor++;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) seen.major++;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  fn();
  // GC entries are delivered asynchronously.
  await new Promise((r) => setTimeout(r, 50));
  obs.disconnect();
  return seen;
}

// Loading the test and exposing the collector allocate, and V8 collects after them on its own schedule: let that
// settle before counting.
test.before(async () => {
  new SocketGarbage(1).discarded(1);
  await new Promise((r) => setTimeout(r, 200));
});

test('a young-generation collection runs once every so many bytes counted, not before', async () => {
  const meter = new SocketGarbage(4 * MiB);
  const below = await collections(() => {
    for (let i = 0; i < 3; i++) meter.discarded(MiB); // 3 MiB: under the step
  });
  // V8 may add collections of its own (up to two were seen on a loaded machine); one a call would be 3.
  assert.ok(below.minor <= 2, `${below.minor} young collections under the step`);
  const over = await collections(() => {
    meter.discarded(MiB); // the 4th MiB
    for (let i = 0; i < 8; i++) meter.discarded(MiB); // two steps more
  });
  assert.ok(over.minor >= 3 && over.minor <= 4, `${over.minor} young collections for 3 steps`);
  assert.ok(over.major <= 1, `${over.major} full collections`);
});

test('with a full step, every so many bytes the collection is a full one instead', async () => {
  const meter = new SocketGarbage(MiB, 4 * MiB);
  const seen = await collections(() => {
    for (let i = 0; i < 8; i++) meter.discarded(MiB);
  });
  assert.ok(seen.major >= 2 && seen.major <= 3, `${seen.major} full collections for 2 full steps`);
  assert.ok(seen.minor >= 6 && seen.minor <= 7, `${seen.minor} young collections for 6 steps`);
});

test.run();
