import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Readiness } from '../../src/http/ops/readiness';

test('readiness: a hung check fails within the bound and is not started again while it hangs; a success is cached', async () => {
  let dbCalls = 0;
  let release: () => void = () => {};
  let mailCalls = 0;
  const r = new Readiness(
    [
      // The first query hangs until released (a stuck database); later ones answer at once.
      {
        name: 'database',
        check: () => (dbCalls++ === 0 ? new Promise<void>((res) => (release = res)) : Promise.resolve()),
      },
      { name: 'mail', check: async () => void mailCalls++, cacheMs: 60_000 },
      {
        name: 'store',
        check: async () => {
          throw new Error('gone');
        },
      },
    ],
    50,
  );
  const started = Date.now();
  assert.equal(await r.failing(), ['database', 'store']);
  assert.ok(Date.now() - started < 1000);
  assert.equal(await r.failing(), ['database', 'store']);
  assert.is(dbCalls, 1, 'the hung query is awaited again, not repeated');
  assert.is(mailCalls, 1, 'a mail server that answered is not asked again within its cache time');
  release();
  await new Promise((res) => setTimeout(res, 10));
  assert.equal(await r.failing(), ['store']);
  assert.is(dbCalls, 2, 'once the hung query ended, the next probe asks again');
  assert.equal(await r.failing(), ['store']);
  assert.is(dbCalls, 3, 'with no cache time, each probe asks the database again');
});

test.run();
