import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountsService } from '../../src/domain/accounts';
import { UsersService } from '../../src/domain/users';
import { Errors, ServiceError, isError } from '../../src/domain/errors';
import {
  AccountElsewhere,
  SignInService,
  type PasswordProvider,
  type ProviderPolicy,
  type SignedInPerson,
} from '../../src/domain/sign-in';
import type { IdGenerator, PasswordHasher } from '../../src/domain/ports';
import { MemoryWorld } from '../fakes/memory-repositories';

// The sign-in rule on the in-memory fakes (src/domain/sign-in.ts): whose an account is, for every pair of
// provider kinds; links an operator makes; accounts older than the rule; and POST /login's order.

const KINDS = ['local', 'header', 'oidc', 'ldap', 'saml'] as const;
type Kind = (typeof KINDS)[number];
const policy = (type: Kind, extra: Partial<ProviderPolicy> = {}): ProviderPolicy => ({
  id: type,
  type,
  linkAccountsOf: [],
  adoptUnattributed: false,
  ...extra,
});

function world(providers: ProviderPolicy[], admins: string[] = []) {
  const w = new MemoryWorld();
  let n = 0;
  const ids: IdGenerator = {
    token: () => `t${++n}`,
    guestToken: () => `g${++n}`,
    secret: () => `s${++n}`,
    password: () => `password-${++n}-long-enough`,
    sessionTokens: () => ({ token: `session-${++n}`, csrfToken: `csrf-${n}` }),
  };
  // Hashes that are the password reversed: enough for the rule, which never looks inside them.
  const passwords: PasswordHasher = {
    hash: async (p) => `h:${p}`,
    verify: async (p, h) => h === `h:${p}`,
  };
  const clock = () => 1_900_000_000;
  const users = new UsersService({ store: w.repos.users, configAdmins: () => admins, clock, ids });
  const accounts = new AccountsService({ repos: w.repos, uow: w.uow, users, clock, ids, passwords });
  const signIn = new SignInService({ repos: w.repos, users, accounts, clock, providers });
  return { w, users, accounts, signIn };
}

const person = (uid: string, email: string, admin = false): SignedInPerson => ({
  uid,
  emails: [email],
  displayName: null,
  admin,
});

async function refused(p: Promise<unknown>): Promise<AccountElsewhere> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof AccountElsewhere, String(e));
    assert.ok(isError(e, Errors.loginAccountElsewhere));
    assert.is((e as ServiceError).status, 403);
    return e as AccountElsewhere;
  }
  throw new Error('the sign-in was let in');
}

/** Provider `kind` makes account `uid` (a local account: its password). */
async function make(t: ReturnType<typeof world>, kind: Kind, uid: string): Promise<void> {
  if (kind === 'local') await t.accounts.addUser(uid, [`${uid}@local.example`], 'local password 1');
  else await t.signIn.signIn(kind, person(uid, `${uid}@${kind}.example`));
}

test('every pair of kinds: an account one provider made is entered by it again, never by another', async () => {
  const t = world(KINDS.map((k) => policy(k)));
  for (const a of KINDS) await make(t, a, `made-by-${a}`);
  for (const a of KINDS) {
    for (const b of KINDS) {
      const uid = `made-by-${a}`;
      if (b === 'local') {
        // Local enters only accounts with a password: another provider's account gets none either.
        if (a === 'local') {
          assert.ok(await t.signIn.signIn('local', { ...person(uid, 'x@x.example'), emails: [] }));
        } else {
          await refused(t.signIn.signIn('local', { ...person(uid, 'x@x.example'), emails: [] }));
          try {
            await t.accounts.setPassword(uid, 'a password of mine');
            assert.unreachable('a password was set on another provider’s account');
          } catch (e) {
            assert.ok(isError(e, Errors.loginAccountElsewhere), String(e));
          }
          // ferry user add … --password-stdin on it: refused before anything changed.
          try {
            await t.accounts.addUser(uid, ['evil@local.example'], 'a password of mine');
            assert.unreachable('a local account was made of another provider’s account');
          } catch (e) {
            assert.ok(isError(e, Errors.loginAccountElsewhere), String(e));
          }
          assert.equal(await t.users.emails(uid), [`${uid}@${a}.example`]);
        }
        continue;
      }
      const attempt =
        a === b
          ? t.signIn.signIn(b, person(uid, `${uid}@${b}.example`))
          : t.signIn.signIn(b, person(uid, `attacker@${b}.example`, true));
      if (a === b) {
        assert.ok(await attempt, `${b} enters its own account`);
        continue;
      }
      const e = await refused(attempt);
      assert.is(e.owner, a, `${b} → account of ${a}`);
      // Nothing of the account changed: its e-mail address, its admin rights.
      assert.equal(await t.users.emails(uid), [`${uid}@${a}.example`]);
      assert.is(await t.users.isAdmin(uid), false);
      assert.is((await t.w.repos.users.owner(uid))?.providerAdmin, false);
    }
  }
  // No session was opened by a refused sign-in.
  const sessions = [
    ...(t.w.repos.sessions as unknown as { rows: Map<string, { userId: string; provider: string }> }).rows.values(),
  ];
  for (const s of sessions) assert.ok(s.userId === `made-by-${s.provider}`, JSON.stringify(s));
});

test('the built-in admin: a directory entry, an OpenID account or a proxy user named "admin" stays out', async () => {
  const t = world(KINDS.map((k) => policy(k)));
  assert.ok(await t.accounts.ensureInitialAdmin());
  for (const b of ['header', 'oidc', 'ldap', 'saml'] as const) {
    await refused(t.signIn.signIn(b, person('admin', 'diradmin@example.org')));
    await refused(t.signIn.admit(b, person('admin', 'diradmin@example.org')));
  }
  assert.equal(await t.users.emails('admin'), ['admin@localhost.localdomain']);
  // Not even an operator's link or a provider's config opens a local account with a password.
  try {
    await t.signIn.link('admin', 'ldap');
    assert.unreachable('linked');
  } catch (e) {
    assert.ok(isError(e, Errors.loginAccountElsewhere));
  }
  const linked = world([policy('local'), policy('ldap', { linkAccountsOf: ['local'], adoptUnattributed: true })]);
  await linked.accounts.ensureInitialAdmin();
  await refused(linked.signIn.signIn('ldap', person('admin', 'diradmin@example.org')));
});

test('links on purpose: ferry user link, and link_accounts_of in the provider’s config', async () => {
  const t = world([policy('oidc'), policy('ldap', { linkAccountsOf: ['oidc'] }), policy('saml')]);
  await make(t, 'oidc', 'carol');
  // ldap may enter oidc's accounts (its config says so); saml may not, until the operator links carol.
  assert.ok(await t.signIn.signIn('ldap', person('carol', 'carol@ldap.example')));
  await refused(t.signIn.signIn('saml', person('carol', 'carol@saml.example')));
  assert.is(await t.signIn.link('carol', 'saml'), true);
  assert.ok(await t.signIn.signIn('saml', person('carol', 'carol@saml.example')));
  assert.is((await t.w.repos.users.owner('carol'))?.provider, 'oidc', 'the account stays oidc’s');
  assert.is(await t.signIn.unlink('carol', 'saml'), true);
  await refused(t.signIn.signIn('saml', person('carol', 'carol@saml.example')));
  // The link is one way: oidc does not enter ldap's accounts.
  await make(t, 'ldap', 'dan');
  await refused(t.signIn.signIn('oidc', person('dan', 'dan@oidc.example')));
  // Unknown providers and local cannot be linked.
  for (const bad of ['nope', 'local'])
    try {
      await t.signIn.link('carol', bad);
      assert.unreachable(bad);
    } catch (e) {
      assert.ok(isError(e, Errors.restBadParameter), String(e));
    }
});

test('accounts older than the rule (no provider recorded): the sole provider adopts them; beside others, only on purpose', async () => {
  const sole = world([policy('local'), policy('oidc')]);
  await sole.w.repos.users.upsertSeen('old', ['old@example.org'], 1);
  assert.ok(await sole.signIn.signIn('oidc', person('old', 'old@example.org')));
  assert.is((await sole.w.repos.users.owner('old'))?.provider, 'oidc');

  const several = world([policy('oidc'), policy('ldap'), policy('saml', { adoptUnattributed: true })]);
  for (const id of ['old1', 'old2', 'old3']) await several.w.repos.users.upsertSeen(id, [`${id}@example.org`], 1);
  const e = await refused(several.signIn.signIn('oidc', person('old1', 'x@example.org')));
  assert.is(e.owner, null);
  assert.match(e.detail, /ferry user link old1 oidc/);
  // The operator links it: the first sign-in through that provider makes it its own.
  await several.signIn.link('old1', 'ldap');
  assert.ok(await several.signIn.signIn('ldap', person('old1', 'old1@example.org')));
  assert.is((await several.w.repos.users.owner('old1'))?.provider, 'ldap');
  await refused(several.signIn.signIn('oidc', person('old1', 'x@example.org')));
  // adopt_unattributed: that provider takes the others.
  assert.ok(await several.signIn.signIn('saml', person('old2', 'old2@example.org')));
  assert.is((await several.w.repos.users.owner('old2'))?.provider, 'saml');
  // A local account whose password was removed stays the local provider's.
  const local = world([policy('local'), policy('ldap')]);
  await local.accounts.addUser('gone', ['gone@example.org'], 'local password 1');
  await local.accounts.removeUser('gone');
  await refused(local.signIn.signIn('ldap', person('gone', 'gone@ldap.example')));
});

test('admin rights from the provider are recorded for the user list, and withdrawn at the next sign-in', async () => {
  const t = world([policy('oidc')]);
  await t.signIn.signIn('oidc', person('boss', 'boss@example.org', true));
  let listed = (await t.accounts.listUsers()).find((u) => u.id === 'boss');
  assert.equal([listed?.admin, listed?.adminByProvider, listed?.provider], [true, true, 'oidc']);
  // Rights by the provider are not rights in the database (a signed request of the user does not get them).
  assert.is(await t.users.isAdmin('boss'), false);
  await t.signIn.signIn('oidc', person('boss', 'boss@example.org', false));
  listed = (await t.accounts.listUsers()).find((u) => u.id === 'boss');
  assert.equal([listed?.admin, listed?.adminByProvider], [false, false]);
});

/** A password provider that knows `accounts` (user → password), or is down. */
function checker(id: string, type: string, accounts: Record<string, string>, calls: string[], down = false) {
  const p: PasswordProvider = {
    id,
    type,
    async checkPassword(userId, password) {
      calls.push(id);
      if (down) throw Errors.loginProviderUnavailable(id);
      if (accounts[userId] !== password) throw Errors.restAuthenticationRequired('login');
      return {
        uid: userId,
        emails: type === 'local' ? [] : [`${userId}@${id}.example`],
        displayName: null,
        admin: false,
      };
    },
  };
  return p;
}

test('POST /login order: a local account is checked alone (directory up or down); others go to each directory in order', async () => {
  const t = world([policy('local'), { ...policy('ldap'), id: 'dir1' }, { ...policy('ldap'), id: 'dir2' }]);
  await t.accounts.addUser('svc', ['svc@example.org'], 'service password 1');
  for (const down of [false, true]) {
    const calls: string[] = [];
    const list = [
      checker('local', 'local', { svc: 'service password 1' }, calls),
      checker('dir1', 'ldap', { alice: 'a1', svc: 'dir password' }, calls, down),
      checker('dir2', 'ldap', { bob: 'b2' }, calls),
    ];
    const ok = await t.signIn.withPassword(list, 'svc', 'service password 1', '127.0.0.1');
    assert.is(ok.provider.id, 'local');
    assert.equal(calls, ['local'], 'no directory saw the local password');
    // The directory's password for the same name does not open the local account.
    try {
      await t.signIn.withPassword(list, 'svc', 'dir password', '127.0.0.1');
      assert.unreachable('signed in');
    } catch (e) {
      assert.ok(isError(e, Errors.restAuthenticationRequired), String(e));
    }
    calls.length = 0;
    const bob = await t.signIn.withPassword(list, 'bob', 'b2', '127.0.0.1');
    assert.is(bob.provider.id, 'dir2');
    assert.equal(calls, down ? ['dir1', 'dir2'] : ['dir1', 'dir2']);
    // Nobody knows this password: 503 while a directory could not be asked, else 401.
    try {
      await t.signIn.withPassword(list, 'carol', 'x', '127.0.0.1');
      assert.unreachable('signed in');
    } catch (e) {
      assert.ok(
        isError(e, down ? Errors.loginProviderUnavailable : Errors.restAuthenticationRequired),
        `${down}: ${String(e)}`,
      );
    }
  }
  // The first directory knows alice, but her account is dir2's: dir2 is asked next; if none lets her in, 403.
  await t.signIn.signIn('dir2', person('alice', 'alice@dir2.example'));
  const calls: string[] = [];
  const both = [checker('dir1', 'ldap', { alice: 'pw' }, calls), checker('dir2', 'ldap', { alice: 'pw' }, calls)];
  assert.is((await t.signIn.withPassword(both, 'alice', 'pw', '127.0.0.1')).provider.id, 'dir2');
  await refused(t.signIn.withPassword([both[0]], 'alice', 'pw', '127.0.0.1'));
});

test.run();
