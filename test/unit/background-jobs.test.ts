import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { BackgroundJobs } from '../../src/domain/background-jobs';

// The one runner of a node's background jobs (src/domain/background-jobs.ts): a pass at start when asked, then
// every interval, never two passes of a job at once, failures logged with the node's name, and a stop that
// waits for the pass under way before it stops each job.

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/** Waits until `done()` holds, checking every 5 ms for at most 2 s. */
async function until(done: () => boolean, what: string) {
  for (let i = 0; i < 400 && !done(); i++) await sleep(5);
  assert.ok(done(), what);
}

test('a job marked atStart runs at once, then every interval; one without waits for its first interval', async () => {
  const errors: string[] = [];
  const jobs = new BackgroundJobs({ error: (m) => errors.push(m) }, 'host:1');
  const runs = { now: 0, later: 0 };
  jobs.register({ name: 'now', everyMs: 20, atStart: true, run: async () => void runs.now++ });
  jobs.register({ name: 'later', everyMs: 60_000, run: async () => void runs.later++ });
  assert.equal(jobs.names(), ['now', 'later']);
  jobs.start();
  assert.is(runs.now, 1, 'the first pass starts with start()');
  await until(() => runs.now >= 3, 'passes every 20 ms');
  await jobs.stop();
  const stopped = runs.now;
  await sleep(60);
  assert.is(runs.now, stopped, 'no pass after stop()');
  assert.equal([runs.later, errors], [0, []]);
});

test('never two passes of one job at once: a tick while a pass runs is skipped', async () => {
  const jobs = new BackgroundJobs({ error: () => {} }, 'host:1');
  const g = gate();
  let started = 0;
  const job = {
    name: 'slow',
    everyMs: 60_000,
    run: async () => {
      started++;
      await g.opened;
    },
  };
  jobs.register(job);
  const first = jobs.pass(job);
  assert.is(jobs.pass(job), first, 'the pass under way is answered');
  assert.is(started, 1);
  g.open();
  await first;
  await jobs.pass(job);
  assert.is(started, 2, 'once it ended, the next pass runs');
  await jobs.stop();
});

test("a failing pass is logged with the node's and the job's names; the next one runs", async () => {
  const errors: string[] = [];
  const jobs = new BackgroundJobs({ error: (m) => errors.push(m) }, 'host:7#2');
  let n = 0;
  const job = {
    name: 'virus scans',
    everyMs: 60_000,
    run: async () => {
      if (++n === 1) throw new Error('clamd unreachable');
    },
  };
  jobs.register(job);
  await jobs.pass(job);
  await jobs.pass(job);
  assert.equal(errors, ['node host:7#2: virus scans: clamd unreachable']);
  assert.is(n, 2);
  await jobs.stop();
});

test('stop waits for the pass under way, then stops every job, started or not', async () => {
  const jobs = new BackgroundJobs({ error: () => {} }, 'host:1');
  const g = gate();
  const order: string[] = [];
  jobs.register({
    name: 'a',
    everyMs: 60_000,
    atStart: true,
    run: async () => {
      await g.opened;
      order.push('a ended');
    },
    stop: async () => void order.push('a stopped'),
  });
  jobs.start();
  const stopping = jobs.stop();
  await sleep(10);
  assert.equal(order, [], 'stop() waits for the pass');
  g.open();
  await stopping;
  assert.equal(order, ['a ended', 'a stopped']);

  const never = new BackgroundJobs({ error: () => {} }, 'host:1');
  let stopped = false;
  let ran = 0;
  never.register({ name: 'b', everyMs: 10, run: async () => void ran++, stop: async () => void (stopped = true) });
  await never.stop();
  assert.ok(stopped, 'a CLI command never starts the jobs, and still stops them on close');
  never.start();
  await sleep(30);
  assert.is(ran, 0, 'a stopped runner starts nothing');
});

test.run();
