import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GroupFlush } from '../../src/db/group-flush';

/** A flush the test finishes by hand, recording when each one began. */
function manualFlush() {
  const begun: { finish: (e?: Error) => void }[] = [];
  const flush = () =>
    new Promise<void>((resolve, reject) => {
      begun.push({ finish: (e) => (e ? reject(e) : resolve()) });
    });
  return { begun, flush };
}

const tick = () => new Promise((r) => setImmediate(r));

/** Tracks whether a promise has settled yet. */
function watch(p: Promise<void>) {
  const s = { done: false, error: null as Error | null };
  p.then(
    () => (s.done = true),
    (e: Error) => ((s.done = true), (s.error = e)),
  );
  return s;
}

test('a caller with no flush under way waits for one that begins at its call', async () => {
  const m = manualFlush();
  const g = new GroupFlush(m.flush);
  const a = watch(g.after());
  await tick();
  assert.is(m.begun.length, 1);
  assert.not.ok(a.done);
  m.begun[0].finish();
  await tick();
  assert.ok(a.done);
});

test('callers arriving during a flush share the next one, which begins only after it', async () => {
  const m = manualFlush();
  const g = new GroupFlush(m.flush);
  const first = watch(g.after());
  // These wrote after the first flush began: it may not cover them.
  const late = [watch(g.after()), watch(g.after()), watch(g.after())];
  await tick();
  assert.is(m.begun.length, 1, 'the second flush waits for the first');
  m.begun[0].finish();
  await tick();
  assert.ok(first.done);
  assert.ok(
    late.every((s) => !s.done),
    'the late callers are not answered by the flush that began before them',
  );
  assert.is(m.begun.length, 2, 'one flush for all three');
  m.begun[1].finish();
  await tick();
  assert.ok(late.every((s) => s.done && !s.error));
  // Quiet again: the next caller begins a flush of its own at once.
  const again = watch(g.after());
  await tick();
  assert.is(m.begun.length, 3);
  m.begun[2].finish();
  await tick();
  assert.ok(again.done);
});

test('a failed flush fails its callers, and the next call begins a new one', async () => {
  const m = manualFlush();
  const g = new GroupFlush(m.flush);
  const a = watch(g.after());
  const b = watch(g.after());
  await tick();
  m.begun[0].finish(new Error('EIO'));
  await tick();
  assert.is(a.error?.message, 'EIO');
  assert.not.ok(b.done, 'b waits for the flush after the failed one');
  m.begun[1].finish(new Error('EIO again'));
  await tick();
  assert.is(b.error?.message, 'EIO again');
  const c = watch(g.after());
  await tick();
  assert.is(m.begun.length, 3);
  m.begun[2].finish();
  await tick();
  assert.ok(c.done && !c.error);
});

test.run();
