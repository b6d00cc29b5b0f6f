import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Gate } from '../../src/util/gate';

// The turns of a node's heaviest reads on PostgreSQL (src/db/postgres.ts, heavyReadsGate): a page that waits too
// long is 503 database_unavailable, like a pool with no free connection, and a failed read frees its turn.

/** A task the test settles by hand. */
function held() {
  let settle: (e?: Error) => void = () => {};
  const done = new Promise<string>((resolve, reject) => {
    settle = (e) => (e ? reject(e) : resolve('ok'));
  });
  return { done, settle };
}

const tick = () => new Promise((r) => setImmediate(r));

class Late extends Error {}

test('at most `size` run at once, the others start in the order they came as places free', async () => {
  const gate = new Gate(2, 10_000, () => new Late());
  const tasks = Array.from({ length: 5 }, () => held());
  const started: number[] = [];
  const runs = tasks.map((t, i) =>
    gate.run(() => {
      started.push(i);
      return t.done;
    }),
  );
  const settled = Promise.allSettled(runs);
  await tick();
  assert.equal(started, [0, 1]);
  assert.is(gate.waiting, 3);
  tasks[1].settle();
  await tick();
  assert.equal(started, [0, 1, 2]);
  tasks[0].settle(new Error('the read failed'));
  await tick();
  assert.equal(started, [0, 1, 2, 3], 'a failed task frees its place too');
  for (const t of tasks) t.settle();
  const out = await settled;
  assert.equal(
    out.map((o) => o.status),
    ['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'],
  );
  assert.equal(started, [0, 1, 2, 3, 4]);
  assert.is(gate.waiting, 0);
});

test('a wait longer than the bound fails with the given error, and that caller never runs later', async () => {
  const gate = new Gate(1, 30, () => new Late('no turn'));
  const first = held();
  const running = gate.run(() => first.done);
  let ran = false;
  const waiting = gate.run(async () => {
    ran = true;
    return 'late';
  });
  const e = await waiting.catch((x: unknown) => x);
  assert.instance(e, Late);
  assert.is(gate.waiting, 0);
  first.settle();
  assert.is(await running, 'ok');
  // The place the first freed goes to the next caller, not to the one that gave up.
  assert.is(await gate.run(async () => 'next'), 'next');
  assert.is(ran, false);
});

test.run();
