import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FlushGroup, FlushSlots } from '../../src/storage/flush-group';

// Grouped flushes: a chunk is acknowledged only after a flush that began once its bytes were written; chunks
// finishing close together share flushes, and a failed flush fails every write it may have covered.

/** A flush whose end the test decides; records when each began. */
function controlledFlush() {
  const began: number[] = [];
  const ends: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let running = 0;
  let peak = 0;
  const flush = () => {
    began.push(Date.now());
    running++;
    peak = Math.max(peak, running);
    return new Promise<void>((resolve, reject) => ends.push({ resolve, reject })).finally(() => running--);
  };
  return {
    flush,
    began,
    get peak() {
      return peak;
    },
    /** Ends the oldest flush still running. */
    end: async (error?: Error) => {
      const e = ends.shift()!;
      if (error) e.reject(error);
      else e.resolve();
      await tick();
    },
    get pending() {
      return ends.length;
    },
  };
}
const tick = () => new Promise((r) => setImmediate(r));

test('a write finishing during a flush waits for the next one, which starts when it ends and covers every write finished by then', async () => {
  const f = controlledFlush();
  const group = new FlushGroup(f.flush, new FlushSlots(2));
  const settled: string[] = [];
  const write = (name: string) => group.after(group.mark()).then(() => settled.push(name));
  const first = write('a');
  await tick();
  assert.is(f.began.length, 1, 'an idle file is flushed at once');
  const second = [write('b'), write('c'), write('d')];
  await tick();
  assert.is(f.began.length, 1, 'writes finishing during a flush do not start another at once');
  await f.end();
  await first;
  assert.equal(settled, ['a'], 'the running flush acknowledges only the write finished before it began');
  assert.is(f.began.length, 2, 'the next flush starts as soon as the running one ends');
  const third = write('e');
  await f.end();
  await Promise.all(second);
  assert.equal(settled, ['a', 'b', 'c', 'd'], 'three writes, one flush');
  assert.is(f.began.length, 3, 'the write that finished during the second flush has a third');
  await f.end();
  await third;
  assert.is(f.pending, 0);
  assert.is(f.began.length, 3);
});

test('a failed flush rejects the writes it covered and those under way while it failed, not later ones', async () => {
  const f = controlledFlush();
  const group = new FlushGroup(f.flush, new FlushSlots(1));
  const covered = group.after(group.mark()).catch((e) => e);
  const underWay = group.mark(); // a write that started before the failure and finishes after it
  await tick();
  const queued = group.after(group.mark()).catch((e) => e);
  await f.end(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
  assert.is((await covered).code, 'EIO');
  // The flush queued behind the failed one succeeds; the writes it covers started before the failure.
  await f.end();
  assert.is((await queued).code, 'EIO');
  const finished = group.after(underWay).catch((e) => e);
  await tick();
  await f.end();
  assert.is((await finished).code, 'EIO', 'a success after a failure proves nothing for writes under way');
  const later = group.after(group.mark());
  await tick();
  await f.end();
  await later;
});

test('flushes of different files run at most as many at once as there are slots; one waiting for a slot takes writes meanwhile', async () => {
  const f = controlledFlush();
  const slots = new FlushSlots(2);
  const groups = Array.from({ length: 5 }, () => new FlushGroup(f.flush, slots));
  const writes = groups.map((g) => g.after(g.mark()));
  await tick();
  assert.is(f.began.length, 2, 'two flushes begun, three waiting for a slot');
  // Writes to a file whose flush has not begun yet join it instead of queueing another.
  const joined = groups[4].after(groups[4].mark());
  for (let i = 0; i < 5; i++) await f.end();
  await Promise.all([...writes, joined]);
  assert.is(f.began.length, 5, 'one flush per file');
  assert.is(f.peak, 2);
});

test.run();
