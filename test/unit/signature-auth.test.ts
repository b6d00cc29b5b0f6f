import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  RemoteApp,
  RemoteApplicationAuthenticator,
  RemoteUserAuthenticator,
  UsedSignatures,
} from '../../src/auth/remote';
import type { AuthRequest, Principal } from '../../src/auth/principal';
import { ServiceError } from '../../src/domain/errors';
import { openDatabase } from '../../src/db/database';
import { SIGNATURE_SWEEP_S } from '../../src/db/signatures-repo';

/** The two signed modes with in-memory stores and a clock the test moves. */
let now = 1_700_000_000;
const clock = () => now;
const apps = new Map<string, RemoteApp>();
const userSecrets = new Map<string, string>();
const used = new Map<string, number>();
const usedStore: UsedSignatures = {
  async use(sig, expires, t) {
    for (const [k, e] of used) if (e < t) used.delete(k);
    if (used.has(sig)) return false;
    used.set(sig, expires);
    return true;
  },
  async release(sig) {
    used.delete(sig);
  },
};
const admins = new Set(['boss']);
const directory = { seen: async (id: string) => ({ isAdmin: admins.has(id), emails: [`${id}@example.org`] }) };
const settings = { baseUrl: () => 'https://files.example.org', maxAge: 15, maxFuture: 86400 };
const appAuth = new RemoteApplicationAuthenticator(
  { get: async (n) => apps.get(n) },
  usedStore,
  directory,
  settings,
  clock,
);
const userAuth = new RemoteUserAuthenticator(
  { remoteSecret: async (id) => userSecrets.get(id) ?? null },
  usedStore,
  directory,
  settings,
  clock,
);

function signed(
  method: string,
  path: string,
  args: Record<string, string | number>,
  secret: string,
  body = '',
): AuthRequest {
  const sorted = Object.entries(args)
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&');
  const toSign = `${method.toLowerCase()}&files.example.org${path}?${sorted}${body ? `&${body}` : ''}`;
  const signature = crypto.createHmac('sha1', secret).update(toSign).digest('hex');
  const rawQuery = `${sorted}&signature=${signature}`;
  return {
    method,
    path,
    rawQuery,
    query: new URLSearchParams(rawQuery),
    headers: { host: 'files.example.org' },
    remoteAddress: '10.0.0.1',
    body: Buffer.from(body),
    cookies: {},
  };
}

async function refusal(fn: () => unknown): Promise<{ id: string; status: number; details: string[] | null }> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof ServiceError) return { id: e.id, status: e.status, details: e.details };
    throw e;
  }
  throw new Error('expected a refusal');
}

/** The error id of a refusal, for the many checks that only need that. */
const refusalId = async (fn: () => unknown) => (await refusal(fn)).id;

test.before.each(() => {
  now = 1_700_000_000;
  apps.clear();
  used.clear();
  userSecrets.clear();
  apps.set('portal', {
    name: 'portal',
    secret: 'app-secret',
    oldSecret: null,
    oldSecretUntil: null,
    isAdmin: false,
    created: 0,
  });
  apps.set('ops', {
    name: 'ops',
    secret: 'ops-secret',
    oldSecret: null,
    oldSecretUntil: null,
    isAdmin: true,
    created: 0,
  });
  userSecrets.set('alice', 'alice-secret');
});

test("remote application as itself, with its admin flag; with remote_user as that user with the user's rights, never more than its own", async () => {
  assert.equal(
    await appAuth.authenticate(signed('GET', '/info', { remote_application: 'portal', timestamp: now }, 'app-secret')),
    { type: 'application', application: 'portal', isAdmin: false },
  );
  assert.equal(
    await appAuth.authenticate(signed('GET', '/info', { remote_application: 'ops', timestamp: now }, 'ops-secret')),
    { type: 'application', application: 'ops', isAdmin: true },
  );
  const asUser = (await appAuth.authenticate(
    signed('GET', '/info', { remote_application: 'ops', remote_user: 'carol', timestamp: now }, 'ops-secret'),
  )) as Principal & { type: 'user' };
  assert.is(asUser.user.id, 'carol');
  assert.is(asUser.via, 'remote_application');
  assert.is(asUser.application, 'ops');
  assert.is(asUser.isAdmin, false, 'an admin application acting as a user does not lend the user its rights');
  const asBoss = (await appAuth.authenticate(
    signed('GET', '/info', { remote_application: 'portal', remote_user: 'boss', timestamp: now }, 'app-secret'),
  )) as Principal & { type: 'user' };
  assert.is(asBoss.isAdmin, false, 'a non-admin application acting for an admin gets no admin power');
  const opsAsBoss = (await appAuth.authenticate(
    signed('GET', '/info', { remote_application: 'ops', remote_user: 'boss', timestamp: now }, 'ops-secret'),
  )) as Principal & { type: 'user' };
  assert.is(opsAsBoss.isAdmin, true, 'an admin application acting for an admin');
});

test('not detected without its argument; unknown application and empty remote_user refused', async () => {
  assert.is(
    await appAuth.authenticate(signed('GET', '/info', { remote_user: 'alice', timestamp: now }, 'alice-secret')),
    null,
  );
  assert.is(
    await userAuth.authenticate(
      signed('GET', '/info', { remote_application: 'portal', remote_user: 'alice', timestamp: now }, 'app-secret'),
    ),
    null,
  );
  assert.is(
    await refusalId(() =>
      appAuth.authenticate(signed('GET', '/info', { remote_application: 'nobody', timestamp: now }, 'x')),
    ),
    'auth_remote_unknown_application',
  );
  assert.is(
    await refusalId(() =>
      appAuth.authenticate(
        signed('GET', '/info', { remote_application: 'portal', remote_user: '', timestamp: now }, 'app-secret'),
      ),
    ),
    'auth_remote_user_rejected',
  );
});

test('remote user: a user without a secret is rejected; a wrong signature fails its check', async () => {
  const p = (await userAuth.authenticate(
    signed('GET', '/user', { remote_user: 'alice', timestamp: now }, 'alice-secret'),
  )) as Principal & { type: 'user' };
  assert.is(p.via, 'remote_user');
  assert.is(
    await refusalId(() =>
      userAuth.authenticate(signed('GET', '/user', { remote_user: 'bob', timestamp: now }, 'whatever')),
    ),
    'auth_remote_user_rejected',
  );
  const wrong = await refusal(() =>
    userAuth.authenticate(signed('GET', '/user', { remote_user: 'alice', timestamp: now }, 'guess')),
  );
  assert.equal([wrong.id, wrong.status], ['auth_remote_signature_check_failed', 401]);
});

test('timestamp window: exactly max_age old passes, one second more is too late; max_future ahead passes, one more is refused', async () => {
  const at = (ts: number | string) => () =>
    appAuth.authenticate(signed('GET', '/info', { remote_application: 'portal', timestamp: ts }, 'app-secret'));
  assert.ok(await at(now - 15)());
  assert.is(await refusalId(at(now - 16)), 'auth_remote_too_late');
  assert.ok(await at(now + 86400)());
  assert.is(await refusalId(at(now + 86401)), 'auth_remote_too_late');
  for (const bad of ['', 'abc', '1e9', '-5', `${now}.5`])
    assert.is(await refusalId(at(bad)), 'auth_remote_too_late', bad);
  assert.is(
    await refusalId(() =>
      userAuth.authenticate(signed('GET', '/user', { remote_user: 'alice', timestamp: now - 100 }, 'alice-secret')),
    ),
    'auth_remote_too_late',
  );
});

test('replay: the same signed POST/PUT/DELETE is refused inside its window, a new timestamp passes, GET may repeat', async () => {
  for (const method of ['POST', 'PUT', 'DELETE']) {
    const r = signed(
      method,
      '/transfer/1',
      { remote_application: 'portal', timestamp: now },
      'app-secret',
      method === 'DELETE' ? '' : '{"a":1}',
    );
    assert.ok(await appAuth.authenticate(r));
    const again = await refusal(() => appAuth.authenticate(r));
    assert.equal([again.id, again.details], ['auth_remote_signature_check_failed', ['replay']], method);
    assert.ok(
      await appAuth.authenticate(
        signed(
          method,
          '/transfer/1',
          { remote_application: 'portal', timestamp: now + 1 },
          'app-secret',
          method === 'DELETE' ? '' : '{"a":1}',
        ),
      ),
    );
  }
  const get = signed('GET', '/transfer/1', { remote_application: 'portal', timestamp: now }, 'app-secret');
  assert.ok(await appAuth.authenticate(get));
  assert.ok(await appAuth.authenticate(get));
});

test('replay: a request with a wrong signature is not remembered, so it cannot spend a real one in advance', async () => {
  const good = signed('POST', '/guest', { remote_user: 'alice', timestamp: now }, 'alice-secret', '{}');
  const forged = { ...good, body: Buffer.from('{"x":1}') };
  assert.is((await refusal(() => userAuth.authenticate(forged))).id, 'auth_remote_signature_check_failed');
  assert.ok(await userAuth.authenticate(good));
});

test('replay memory lasts the window: a future-dated request stays refused until its own time has passed', async () => {
  const r = signed('POST', '/transfer', { remote_application: 'portal', timestamp: now + 3600 }, 'app-secret', '{}');
  assert.ok(await appAuth.authenticate(r));
  now += 3600 + 10;
  assert.is((await refusal(() => appAuth.authenticate(r))).details?.[0], 'replay');
  now += 10;
  assert.is((await refusal(() => appAuth.authenticate(r))).id, 'auth_remote_too_late');
});

test('rotation grace: the old secret works until old_secret_until, then only the new one', async () => {
  apps.set('portal', {
    name: 'portal',
    secret: 'new',
    oldSecret: 'app-secret',
    oldSecretUntil: now + 60,
    isAdmin: false,
    created: 0,
  });
  assert.ok(
    await appAuth.authenticate(signed('GET', '/info', { remote_application: 'portal', timestamp: now }, 'app-secret')),
  );
  assert.ok(
    await appAuth.authenticate(signed('GET', '/info', { remote_application: 'portal', timestamp: now }, 'new')),
  );
  now += 61;
  assert.is(
    await refusalId(() =>
      appAuth.authenticate(signed('GET', '/info', { remote_application: 'portal', timestamp: now }, 'app-secret')),
    ),
    'auth_remote_signature_check_failed',
  );
  assert.ok(
    await appAuth.authenticate(signed('GET', '/info', { remote_application: 'portal', timestamp: now }, 'new')),
  );
});

test('the database store of used signatures: a replay is refused until it expires, expired rows are swept (at most once a minute)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-sig-'));
  const db = await openDatabase({ dataDir: dir, url: null });
  try {
    const repo = db.repos.signatures;
    const t0 = 1_700_000_000;
    assert.ok(await repo.use('a'.repeat(40), t0 + 16, t0));
    assert.not.ok(await repo.use('a'.repeat(40), t0 + 16, t0 + 5), 'a replay inside the window');
    assert.ok(await repo.use('b'.repeat(40), t0 + 20, t0 + 5));
    assert.is(await repo.count(), 2);
    // Past its expiry a row no longer refuses anything, even before the sweep removes it.
    assert.ok(await repo.use('a'.repeat(40), t0 + 40, t0 + 17));
    assert.is(await repo.count(), 2, 'not swept yet: the last sweep was 17 s ago');
    assert.ok(await repo.use('c'.repeat(40), t0 + 100, t0 + SIGNATURE_SWEEP_S + 30));
    assert.is(await repo.count(), 1, 'a and b expired and were swept, c stays');
    assert.not.ok(await repo.use('c'.repeat(40), t0 + 100, t0 + SIGNATURE_SWEEP_S + 31));
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
