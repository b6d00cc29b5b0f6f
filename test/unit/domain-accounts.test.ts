import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { domainOnFakes } from '../fakes/domain';
import { refused } from '../helpers/domain-factories';

// Local accounts, sessions, admins and remote applications (src/domain/accounts.ts, users.ts), on the in-memory
// ports of test/fakes/: what an operator and a person signing in with a password rely on. The sign-in rule of
// every provider kind is in test/unit/sign-in.test.ts.

const IP = '203.0.113.9';
const MINUTE = 60;

test('a local account: signs in with its password into a session that logout ends; a wrong one is refused', async () => {
  const d = domainOnFakes();
  await d.accounts.addUser('pia', ['Pia@Example.org'], 'a long enough password');
  const r = await d.accounts.login('pia', 'a long enough password', IP);
  const s = await d.accounts.session(r.token);
  assert.equal([s?.userId, s?.provider], ['pia', 'local']);
  assert.equal(await d.users.emails('pia'), ['pia@example.org']);
  await refused(d.accounts.login('pia', 'not the password', IP), 'rest_authentication_required');
  await refused(d.accounts.login('nobody', 'a long enough password', IP), 'rest_authentication_required');
  await d.accounts.logout(r.token);
  assert.is(await d.accounts.session(r.token), undefined);
});

test('the login throttle: after five failures the account waits, also with the right password; a known browser does not', async () => {
  const d = domainOnFakes();
  await d.accounts.addUser('tom', ['tom@example.org'], 'the right password');
  const first = await d.accounts.login('tom', 'the right password', IP);
  for (let i = 0; i < 5; i++)
    await refused(d.accounts.login('tom', 'wrong', '192.0.2.1'), 'rest_authentication_required');
  await refused(d.accounts.login('tom', 'the right password', '192.0.2.2'), 'rate_limit_exceeded');
  // The browser that signed in before keeps its own count.
  assert.ok(await d.accounts.login('tom', 'the right password', IP, 'local', first.deviceToken));
  d.time.now += 16 * MINUTE;
  assert.ok(await d.accounts.login('tom', 'the right password', '192.0.2.2'), 'the window passed');
});

test("passwords: changed with the current one, which ends the user's other sessions; too short refused", async () => {
  const d = domainOnFakes();
  await d.accounts.addUser('ada', ['ada@example.org'], 'first password here');
  const a = await d.accounts.login('ada', 'first password here', IP);
  const b = await d.accounts.login('ada', 'first password here', IP);
  await refused(
    d.accounts.changeOwnPassword('ada', 'wrong current', 'second password here', a.token, IP),
    'user_password_incorrect',
  );
  await refused(d.accounts.setPassword('ada', 'short'), 'rest_bad_parameter');
  await d.accounts.changeOwnPassword('ada', 'first password here', 'second password here', a.token, IP);
  assert.ok(await d.accounts.session(a.token), 'the session that changed it stays');
  assert.is(await d.accounts.session(b.token), undefined, 'the others end');
  await refused(d.accounts.login('ada', 'first password here', IP), 'rest_authentication_required');
  assert.ok(await d.accounts.login('ada', 'second password here', IP));
});

test('operators: users made once, admins set by others only, removed with their sessions', async () => {
  const d = domainOnFakes({ config: { admin: ['root'] } });
  const password = await d.accounts.createLocalUser('eve', ['eve@example.org'], false);
  await refused(d.accounts.createLocalUser('eve', ['eve@example.org'], false), 'user_exists');
  await refused(d.accounts.createLocalUser('bad id!', ['x@example.org'], false), 'rest_bad_parameter');
  await refused(d.accounts.addUser('bob', ['not-an-email'], null), 'bad_email');
  await d.accounts.setAdminBy('root', 'eve', true);
  assert.ok(await d.users.isAdmin('eve'));
  assert.ok(await d.users.isAdmin('root'), 'an admin from the config');
  await refused(d.accounts.setAdminBy('eve', 'eve', false), 'user_cannot_change_self');
  const s = await d.accounts.login('eve', password, IP);
  await d.accounts.removeUserBy('root', 'eve');
  assert.is(await d.accounts.session(s.token), undefined);
  await refused(d.accounts.removeUserBy('root', 'eve'), 'user_not_found');
});

test('the first start: one initial admin with a password, never a second', async () => {
  const d = domainOnFakes();
  const password = await d.accounts.ensureInitialAdmin();
  assert.ok(password);
  assert.is(await d.accounts.ensureInitialAdmin(), null);
  assert.ok(await d.users.isAdmin('admin'));
  assert.ok(await d.accounts.login('admin', password!, IP));
});

test('remote applications: a name added once with a secret; a rotation keeps the old one for the grace period', async () => {
  const d = domainOnFakes();
  const secret = await d.accounts.addRemoteApp('backup-bot', false);
  await refused(d.accounts.addRemoteApp('backup-bot', true), 'rest_bad_parameter');
  await refused(d.accounts.addRemoteApp('no spaces', true), 'rest_bad_parameter');
  const rotated = await d.accounts.rotateRemoteApp('backup-bot', 3600);
  assert.is.not(rotated.secret, secret);
  const [app] = await d.accounts.listRemoteApps();
  assert.equal([app.name, app.admin, app.graceUntil], ['backup-bot', false, d.time.now + 3600]);
  const stored = await d.world.repos.remoteApps.get('backup-bot');
  assert.equal([stored?.secret, stored?.oldSecret], [rotated.secret, secret]);
  await d.accounts.removeRemoteApp('backup-bot');
  assert.not.ok(await d.accounts.remoteAppExists('backup-bot'));
  await refused(d.accounts.removeRemoteApp('backup-bot'), 'rest_bad_parameter');
});

test.run();
