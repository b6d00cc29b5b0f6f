import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertErrorShape, dbHash } from './fixture';
import { AccessWorld, startAccessWorld, storeHash } from './access-world';
import { ENDPOINTS } from './access-endpoints';

// A remote application acting as a user gets that user's rights, never more than its own: a non-admin
// application signing `remote_user=boss` (an admin) must get no admin power on any admin route. Before, it read
// the user list and set a new password for any local account (account takeover).
let w: AccessWorld;

test.before(async () => {
  w = await startAccessWorld();
});
test.after(async () => {
  await w.s.close();
});

const adminRoutes = ENDPOINTS.filter((e) => e.level === 'admin');

test('a non-admin application acting for an admin is refused every admin route, and changes nothing', async () => {
  assert.ok(adminRoutes.length >= 13, `admin routes: ${adminRoutes.length}`);
  await w.settle();
  for (const e of adminRoutes) {
    const label = `portal as boss: ${e.method} ${e.route}`;
    const before = await dbHash(w.s, ['used_signatures']);
    const stored = storeHash(w.s);
    const r = await w.as('appAsAdmin', e.method, e.path(w.alice), e.init?.(w.alice));
    assert.equal([r.status, r.json?.message], [403, 'rest_admin_required'], `${label}: ${r.text.slice(0, 300)}`);
    assertErrorShape(r, label);
    assert.is(await dbHash(w.s, ['used_signatures']), before, `${label} changed the database`);
    assert.is(storeHash(w.s), stored, `${label} changed stored files`);
  }
});

test("acting for an admin, a non-admin application does not own other users' resources either", async () => {
  for (const e of ENDPOINTS.filter((x) => x.level === 'owner' && x.method === 'GET')) {
    const r = await w.as('appAsAdmin', e.method, e.path(w.alice));
    assert.equal(
      [r.status, r.json?.message],
      [404, e.notFound],
      `portal as boss: ${e.method} ${e.route}: ${r.text.slice(0, 200)}`,
    );
  }
  // boss's own things stay reachable through it: the user's own rights.
  const me = await w.as('appAsAdmin', 'GET', '/user/@me');
  assert.is(me.status, 200, me.text);
  assert.is(me.json.id, 'boss');
});

test('an admin application acting for an admin keeps the admin powers', async () => {
  for (const e of adminRoutes) {
    const t = e.method === 'GET' ? w.alice : await w.fresh();
    const r = await w.as('adminAppAsAdmin', e.method, e.path(t), e.init?.(t));
    assert.is(r.status, e.okStatus ?? 200, `ops as boss: ${e.method} ${e.route}: ${r.text.slice(0, 300)}`);
  }
});

test.run();
