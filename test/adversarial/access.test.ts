import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestResponse } from '../helpers/server';
import { assertErrorShape, dbHash } from './fixture';
import { ATTACKERS, AccessWorld, FILE_SIZE, Init, multipart, startAccessWorld, storeHash, Who } from './access-world';
import { patternBytes } from '../helpers/upload-client';
import { allowed, ENDPOINTS, Endpoint, expected, PUBLIC_ROUTES, UNKNOWN } from './access-endpoints';

// Access: every endpoint × every principal that is not the owner. Each refusal must carry the
// design's status and id, leave every table unchanged, and read exactly like the answer for an id nobody holds,
// so another user's ids cannot be told from unknown ones. The allowed principals must then succeed, so the
// table cannot pass by refusing everyone. Signatures are in signatures.test.ts, /download and pages in
// access-download.test.ts.
let w: AccessWorld;
const counts = { refused: 0, own: 0, sameAsUnknown: 0, restPhp: 0, allowed: 0 };

test.before(async () => {
  w = await startAccessWorld();
});
test.after(async () => {
  console.log(`  access matrix: ${JSON.stringify(counts)} = ${Object.values(counts).reduce((a, b) => a + b)} cases`);
  await w.s.close();
});

const label = (e: Endpoint, who: Who) => `${who} ${e.method} ${e.route}`;
/** The body without the uid that differs from one answer to the next. */
const withoutUid = (r: TestResponse) => (r.json?.uid ? r.text.replace(r.json.uid, '<uid>') : r.text);
/** A signed change is recorded (replay refusal) and given back when refused; the sweep of expired ones may run meanwhile. */
const skipFor = (who: Who) => (who === 'remoteApp' ? ['used_signatures'] : []);

test('the table covers every route the server registers', () => {
  const routers = (
    w.s.app.http.middleware as unknown as { router?: { stack: { methods: string[]; path: string }[] } }[]
  )
    .map((m) => m.router)
    .filter((r) => r?.stack.some((l) => l.path === '/transfer/:id'));
  assert.is(routers.length, 1, 'the REST router');
  const registered = routers[0]!.stack.flatMap((l) =>
    l.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${l.path}`),
  );
  const covered = new Set([...ENDPOINTS.map((e) => `${e.method} ${e.route}`), ...PUBLIC_ROUTES]);
  const missing = registered.filter((r) => !covered.has(r));
  assert.equal(missing, [], 'routes without a row in access-endpoints.ts');
  const stale = [...covered].filter((r) => !registered.includes(r));
  assert.equal(stale, [], 'rows for routes that no longer exist');
});

test('every attacker on every endpoint: refused, nothing changed, same answer as for an unknown id', async () => {
  await w.settle();
  for (const e of ENDPOINTS) {
    for (const who of ATTACKERS) {
      const want = expected(e, who);
      if (want === 'own') {
        // A user's own list or preferences: allowed, and nothing of alice's in it.
        if (e.method !== 'GET') continue;
        const r = await w.as(who, e.method, e.path(w.alice));
        assert.is(r.status, 200, `${label(e, who)}: ${r.text}`);
        assert.not.match(r.text, /alice/, `${label(e, who)} shows alice's data`);
        counts.own++;
        continue;
      }
      const before = await dbHash(w.s, skipFor(who));
      const stored = storeHash(w.s);
      const r = await w.as(who, e.method, e.path(w.alice), e.init?.(w.alice));
      assert.equal([r.status, r.json?.message], [...want], `${label(e, who)}: ${r.text.slice(0, 300)}`);
      assertErrorShape(r, label(e, who));
      assert.is(await dbHash(w.s, skipFor(who)), before, `${label(e, who)} changed the database`);
      assert.is(storeHash(w.s), stored, `${label(e, who)} changed stored files`);
      counts.refused++;
      if (e.path(UNKNOWN) === e.path(w.alice)) continue;
      const u = await w.as(who, e.method, e.path(UNKNOWN), e.init?.(UNKNOWN));
      assert.is(u.status, r.status, `${label(e, who)} vs an unknown id`);
      assert.is(withoutUid(u), withoutUid(r), `${label(e, who)} vs an unknown id`);
      counts.sameAsUnknown++;
    }
  }
});

test('under /rest.php/ every endpoint answers another user exactly as without the prefix', async () => {
  for (const e of ENDPOINTS) {
    if (expected(e, 'otherUser') === 'own' && e.method !== 'GET') continue;
    const direct = await w.as('otherUser', e.method, e.path(w.alice), e.init?.(w.alice));
    const before = await dbHash(w.s);
    const prefixed = await w.as('otherUser', e.method, `/rest.php${e.path(w.alice)}`, e.init?.(w.alice));
    assert.is(prefixed.status, direct.status, `/rest.php ${e.method} ${e.route}`);
    assert.is(withoutUid(prefixed), withoutUid(direct), `/rest.php ${e.method} ${e.route}`);
    if (prefixed.status >= 400)
      assert.is(await dbHash(w.s), before, `/rest.php ${e.method} ${e.route} changed the database`);
    counts.restPhp++;
  }
});

test('the owner, admins and admin applications succeed where the spec lets them (on fresh resources when they change them)', async () => {
  for (const e of ENDPOINTS) {
    for (const who of allowed(e)) {
      const t = e.method === 'GET' ? w.alice : await w.fresh();
      const r = await w.as(who, e.method, e.path(t), (e.okInit ?? e.init)?.(t));
      assert.is(r.status, e.okStatus ?? 200, `${label(e, who)}: ${r.text.slice(0, 300)}`);
      counts.allowed++;
    }
  }
});

test('a chunk key alone carries an upload to the end (chunk, whole file, completions) and may delete only before it is available', async () => {
  const t = await w.fresh();
  const key = (path: string, method: string, init?: Init) => w.as('anonymous', method, `${path}?key=${t.key}`, init);
  const steps: [string, string, Init | undefined, number][] = [
    [
      'PUT',
      `/file/${t.emptyFile}/chunk/0`,
      { body: patternBytes('k', FILE_SIZE), headers: { 'content-type': 'application/octet-stream' } },
      200,
    ],
    ['PUT', `/file/${t.file}`, { json: { complete: true } }, 200],
    ['PUT', `/file/${t.emptyFile}`, { json: { complete: true } }, 200],
    ['PUT', `/transfer/${t.transfer}`, { json: { complete: true } }, 200],
    ['DELETE', `/transfer/${t.transfer}`, undefined, 401],
  ];
  for (const [method, path, init, status] of steps) {
    const r = await key(path, method, init);
    assert.is(r.status, status, `${method} ${path}: ${r.text}`);
    counts.allowed++;
  }
  const other = await w.fresh();
  const whole = await w.as(
    'anonymous',
    'POST',
    `/file/${other.emptyFile}/whole?key=${other.key}`,
    multipart(patternBytes('k', FILE_SIZE)),
  );
  assert.is(whole.status, 201, whole.text);
  const del = await w.as('anonymous', 'DELETE', `/transfer/${other.transfer}?key=${other.key}`);
  assert.is(del.status, 200, del.text);
  counts.allowed += 2;
});

test.run();
