import * as assert from 'uvu/assert';
import type { Session } from '../../src/domain/ports';
import { forEachWorld } from '../helpers/repository-worlds';

// The repository contract of who may act (users and whose an account is, local accounts, sessions, remote
// applications, used signatures, login failures and known devices, PUT /config's overrides), run on the
// in-memory fakes of test/fakes/ as on SQLite and PostgreSQL: the domain's unit tests on the fakes
// (test/unit/domain-*.test.ts, sign-in.test.ts) hold on the databases too. The same cases, the same answers.

const T0 = 1_900_000_000;

const session = (id: string, userId: string, over: Partial<Session> = {}): Session => ({
  id: id.padEnd(64, '0'),
  userId,
  csrfToken: `csrf-${id}`,
  created: T0,
  lastSeen: T0,
  provider: 'local',
  providerAdmin: false,
  providerRef: null,
  providerData: null,
  ...over,
});

forEachWorld('who may act: the repositories', (it) => {
  it('users: seen once, e-mails lower-cased as a list, language and remote secret kept, admins by id', async ({
    w,
  }) => {
    const u = w.repos.users;
    assert.equal(await u.upsertSeen('uma', ['Uma@X.org', 'u2@x.org'], T0), ['uma@x.org', 'u2@x.org']);
    assert.equal(await u.upsertSeen('uma', [], T0 + 1), ['uma@x.org', 'u2@x.org'], 'no e-mails: the list stays');
    assert.is(await u.lang('uma'), null, 'none chosen');
    await u.setLang('uma', 'fr');
    assert.is((await u.record('uma'))!.lang, 'fr');
    assert.is(await u.lang('uma'), 'fr', "this node's own change holds at once, though the last read was kept");
    await u.setLang('uma', 'de');
    assert.is(await u.lang('uma'), 'de');
    assert.is(await u.lang('nobody'), null);
    assert.is(await u.record('nobody'), undefined);
    assert.is(await u.remoteSecret('uma'), null);
    await u.setRemoteSecret('uma', 's3cret');
    assert.is(await u.remoteSecret('uma'), 's3cret');
    assert.ok((await u.listIds()).includes('uma'));
    assert.ok(await u.addAdmin('uma', T0));
    assert.ok((await u.listAdmins()).includes('uma'));
    assert.ok(await u.removeAdmin('uma'));
    assert.not.ok(await u.removeAdmin('uma'), 'not one any more');
    assert.not.ok(await u.isDbAdmin('uma'));
  });

  it('users: whose an account is — made by a provider once, adopted only when unattributed, links added once', async ({
    w,
  }) => {
    const u = w.repos.users;
    assert.is(await u.owner('ola', true), undefined);
    await u.createFor('ola', 'ldap', T0);
    await u.createFor('ola', 'oidc', T0 + 1);
    assert.equal(await u.owner('ola', true), { provider: 'ldap', hasPassword: false, links: [], providerAdmin: false });
    assert.not.ok(await u.adopt('ola', 'oidc'), 'attributed already');
    await u.upsertSeen('old', ['old@x.org'], T0);
    assert.is((await u.owner('old', true))!.provider, null);
    assert.ok(await u.adopt('old', 'saml'));
    assert.is((await u.owner('old', true))!.provider, 'saml');
    assert.ok(await u.link('ola', 'saml', T0));
    assert.not.ok(await u.link('ola', 'saml', T0), 'linked already');
    await u.setProviderAdmin('ola', true);
    assert.equal(await u.owner('ola', true), {
      provider: 'ldap',
      hasPassword: false,
      links: ['saml'],
      providerAdmin: true,
    });
    assert.ok(await u.unlink('ola', 'saml'));
    assert.not.ok(await u.unlink('ola', 'saml'));
  });

  it('local accounts: the first made once even when asked at once; a password makes the account one with a password', async ({
    w,
  }) => {
    const a = w.repos.localAccounts;
    await w.repos.users.upsertSeen('first', [], T0);
    await w.repos.users.upsertSeen('second', [], T0);
    const made = await Promise.all([a.createFirst('first', 'h1', T0), a.createFirst('second', 'h2', T0)]);
    assert.equal(made.filter(Boolean).length, 1, 'one first account');
    const first = made[0] ? 'first' : 'second';
    assert.equal(await a.userIds(), [first]);
    assert.not.ok(await a.createFirst('third', 'h3', T0), 'there is one already');
    await w.repos.users.upsertSeen('pat', [], T0);
    await a.setPassword('pat', 'hash-1', T0);
    await a.setPassword('pat', 'hash-2', T0 + 1);
    assert.is(await a.passwordHash('pat'), 'hash-2');
    assert.is(await a.count(), 2);
    assert.ok((await w.repos.users.owner('pat', true))!.hasPassword);
    assert.ok(await a.delete('pat'));
    assert.not.ok(await a.delete('pat'));
    assert.is(await a.passwordHash('pat'), undefined);
  });

  it('sessions: read back as made; ended one by one, all of a user but one, when stale, or by the provider', async ({
    w,
  }) => {
    const s = w.repos.sessions;
    for (const u of ['sam', 'sue']) await w.repos.users.upsertSeen(u, [], T0);
    await s.create(session('a1', 'sam', { providerRef: 'ref-1', provider: 'saml', providerData: 'hint' }));
    await s.create(session('a2', 'sam'));
    await s.create(session('a3', 'sam', { created: T0 - 100 }));
    await s.create(session('b1', 'sue', { providerRef: 'ref-1', provider: 'oidc' }));
    assert.equal(
      await s.get('a1'.padEnd(64, '0')),
      session('a1', 'sam', { providerRef: 'ref-1', provider: 'saml', providerData: 'hint' }),
    );
    await s.touch('a2'.padEnd(64, '0'), T0 + 50);
    assert.is((await s.get('a2'.padEnd(64, '0')))!.lastSeen, T0 + 50);
    // Idle since before T0 + 10, or made before T0 - 50: a1 and b1 idle, a3 too old; a2 was seen.
    assert.is(await s.deleteStale(T0 - 10, T0 - 50), 1, 'only the one made too long ago');
    assert.is(await s.get('a3'.padEnd(64, '0')), undefined);
    assert.is(await s.deleteByRef('saml', ['ref-1', 'ref-9']), 1, "only the provider's own session by that name");
    assert.ok(await s.get('b1'.padEnd(64, '0')));
    await s.create(session('a4', 'sam'));
    await s.deleteOf('sam', 'a4'.padEnd(64, '0'));
    assert.is(await s.get('a2'.padEnd(64, '0')), undefined);
    assert.ok(await s.get('a4'.padEnd(64, '0')), 'the one kept');
    await s.delete('a4'.padEnd(64, '0'));
    assert.is(await s.get('a4'.padEnd(64, '0')), undefined);
    assert.ok(await s.get('b1'.padEnd(64, '0')), "another user's session stays");
  });

  it('remote apps: a name added once; a rotation keeps the old secret until when it is told, or drops it', async ({
    w,
  }) => {
    const r = w.repos.remoteApps;
    assert.ok(await r.add('zeta', 'z1', false, T0));
    assert.ok(await r.add('alpha', 'a1', true, T0));
    assert.not.ok(await r.add('alpha', 'other', false, T0), 'the name is taken');
    assert.equal(await r.get('alpha'), {
      name: 'alpha',
      secret: 'a1',
      oldSecret: null,
      oldSecretUntil: null,
      isAdmin: true,
      created: T0,
    });
    assert.ok(await r.rotate('alpha', 'a2', T0 + 60));
    assert.equal(await r.get('alpha').then((a) => [a!.secret, a!.oldSecret, a!.oldSecretUntil]), ['a2', 'a1', T0 + 60]);
    assert.ok(await r.rotate('alpha', 'a3', null));
    assert.equal(await r.get('alpha').then((a) => [a!.secret, a!.oldSecret, a!.oldSecretUntil]), ['a3', null, null]);
    assert.not.ok(await r.rotate('nobody', 'x', null));
    assert.equal(
      (await r.list()).map((a) => a.name),
      ['alpha', 'zeta'],
    );
    assert.ok(await r.remove('zeta'));
    assert.not.ok(await r.remove('zeta'));
    assert.is(await r.get('zeta'), undefined);
  });

  it('used signatures: a replay refused in its window, accepted after it; a released one may be used again', async ({
    w,
  }) => {
    const s = w.repos.signatures;
    const before = await s.count();
    assert.ok(await s.use('b'.repeat(40), T0 + 16, T0));
    assert.not.ok(await s.use('b'.repeat(40), T0 + 30, T0 + 10), 'a replay within the window');
    assert.ok(await s.use('c'.repeat(40), T0 + 16, T0));
    assert.is(await s.count(), before + 2);
    await s.release('c'.repeat(40));
    assert.ok(await s.use('c'.repeat(40), T0 + 16, T0 + 1), 'released: the retry may use it');
    assert.ok(await s.use('b'.repeat(40), T0 + 60, T0 + 17), 'its window passed');
  });

  it('login failures: counted per key in their window; one removed, a key cleared', async ({ w }) => {
    const f = w.repos.loginFailures;
    await w.uow.run(async (tx) => {
      await tx.loginFailures.hold(['user:lf', 'ip:lf']);
      await tx.loginFailures.add('user:lf', T0);
    });
    const second = await f.add('user:lf', T0 + 5);
    await f.add('ip:lf', T0 + 5);
    assert.equal(await f.window('user:lf', T0 - 1), { count: 2, oldest: T0 });
    assert.equal(await f.window('user:lf', T0), { count: 1, oldest: T0 + 5 }, 'the window starts after `since`');
    await f.remove(second);
    assert.equal(await f.window('user:lf', T0 - 1), { count: 1, oldest: T0 });
    await f.clear('user:lf');
    assert.equal(await f.window('user:lf', T0 - 1), { count: 0, oldest: null });
    assert.equal(await f.window('ip:lf', T0 - 1), { count: 1, oldest: T0 + 5 }, 'another key stays');
  });

  it('login devices: a browser is known to the account it signed in to, not to another', async ({ w }) => {
    const d = w.repos.loginDevices;
    for (const u of ['dev-a', 'dev-b']) await w.repos.users.upsertSeen(u, [], T0);
    assert.not.ok(await d.known('device-1', 'dev-a'));
    await d.remember('device-1', 'dev-a', T0);
    await d.remember('device-1', 'dev-a', T0 + 5);
    assert.ok(await d.known('device-1', 'dev-a'));
    assert.not.ok(await d.known('device-1', 'dev-b'));
  });

  it('overrides: saved as a whole set that replaces the last one, read back as JSON values', async ({ w }) => {
    const o = w.repos.overrides;
    await o.save({ max_transfer_days_valid: 30, transfer_options: ['a', 'b'], banner: { en: 'x' } });
    assert.equal(await o.load(), { max_transfer_days_valid: 30, transfer_options: ['a', 'b'], banner: { en: 'x' } });
    await o.save({ max_transfer_days_valid: 5 });
    assert.equal(await o.load(), { max_transfer_days_valid: 5 }, 'a key left out is gone');
    await o.save({});
    assert.equal(await o.load(), {});
  });

  it('a unit of work that fails leaves none of its changes behind', async ({ w }) => {
    await w.uow
      .run(async (tx) => {
        await tx.remoteApps.add('rolled-back', 's', false, T0);
        await tx.loginFailures.add('user:rb', T0);
        throw new Error('rolled back');
      })
      .catch(() => {});
    assert.is(await w.repos.remoteApps.get('rolled-back'), undefined);
    assert.equal(await w.repos.loginFailures.window('user:rb', T0 - 1), { count: 0, oldest: null });
  });
});
