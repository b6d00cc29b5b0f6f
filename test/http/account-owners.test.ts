import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, startTestServer, tempDir, type TestServer } from '../helpers/server';
import { capturingLogger } from '../helpers/session';
import { startOidcProvider, type OidcServer, type TestAccount } from '../helpers/system/oidc';
import { startDirectory, type TestDirectory } from '../helpers/system/slapd';
import { startIdp, type IdpUser, type TestIdp } from '../helpers/system/simplesamlphp';
import { CookieJar, toCallback, visit } from '../helpers/oidc-flow';
import { postAnswer, samlKeysByCli, toAssertion } from '../helpers/saml-flow';
import { runCli } from '../../src/cli/program';

// Whose an account is (docs/single-sign-on.md, "User ids of several providers"), with every kind at once on real
// identity servers: local accounts, a trusted proxy's headers, OpenID Connect (oidc-provider), LDAP (slapd) and
// SAML (SimpleSAMLphp). Each provider makes an account; every other provider then vouches for a person with the
// same user id, and none gets in: not into another provider's account, and never into a local account, the
// built-in admin included. An operator's link lets one in on purpose. Also POST /login for scripts with the
// directory up and down, admin rights from a provider's groups as GET /user and the user list show them, and an
// OpenID provider that went down after discovery.

const KINDS = ['local', 'proxy', 'sso', 'dir', 'uni'] as const;
type Kind = (typeof KINDS)[number];
const target = (k: Kind) => `made-by-${k}`;
/** Every user id a provider's people may claim: each kind's account, and the local admin. */
const IDS = [...KINDS.map(target), 'admin'];
const pw = (uid: string) => `${uid} pw 1`;
const LOCAL_PW = 'local password 1';
const ADMIN_GROUP = 'ferry-admins';
const SAML_ADMIN = 'urn:mace:example.org:ferry:admin';

let s: TestServer;
let dir: TestDirectory;
let op: OidcServer;
let idp: TestIdp;
let cfgFile: string;
const logged = capturingLogger();
let adminPassword: string;

test.before(async () => {
  const oidcPort = await freePort();
  const idpPort = await freePort();
  dir = await startDirectory(
    [
      ...IDS.map((uid) => ({ uid, password: pw(uid), mail: `${uid}@dir.example`, cn: uid })),
      { uid: 'svc', password: 'directory svc pw', mail: 'svc@dir.example', cn: 'svc' },
      { uid: 'ops', password: 'directory ops pw', mail: 'ops@dir.example', cn: 'ops' },
    ],
    { [ADMIN_GROUP]: ['ops'] },
  );
  const keys = await samlKeysByCli(tempDir());
  const samlUsers: Record<string, IdpUser> = {};
  for (const uid of IDS)
    samlUsers[uid] = { password: pw(uid), attributes: { uid: [uid], mail: [`${uid}@uni.example`] } };
  samlUsers.chief = {
    password: pw('chief'),
    attributes: { uid: ['chief'], mail: ['chief@uni.example'], eduPersonEntitlement: [SAML_ADMIN] },
  };
  idp = await startIdp(samlUsers, { port: idpPort });
  const sp = [
    {
      type: 'oidc',
      id: 'sso',
      issuer: `http://127.0.0.1:${oidcPort}`,
      client_id: 'ferry',
      client_secret: 'owners-client-secret',
      scopes: ['openid', 'email', 'profile', 'groups'],
      admin_groups: [ADMIN_GROUP],
    },
    {
      type: 'ldap',
      id: 'dir',
      url: dir.url,
      bind_dn: dir.bindDn,
      bind_password: dir.bindPassword,
      user_base: `ou=people,${dir.suffix}`,
      admin_groups: [`cn=${ADMIN_GROUP},ou=groups,${dir.suffix}`],
      timeout_s: 2,
    },
    {
      type: 'saml',
      id: 'uni',
      ...keys,
      idp_metadata: [`http://127.0.0.1:${idpPort}/saml2/idp/metadata.php`],
      uid_attributes: ['uid'],
      admin_values: [SAML_ADMIN],
    },
    { type: 'header', id: 'proxy', trusted_proxies: ['127.0.0.1', '::1'] },
    { type: 'local' },
  ];
  s = await startTestServer({ auth: { sp } }, { log: logged.log });
  const accounts: Record<string, TestAccount> = {};
  for (const uid of IDS) accounts[uid] = { email: `${uid}@sso.example`, email_verified: true, groups: [ADMIN_GROUP] };
  accounts.boss = { email: 'boss@sso.example', email_verified: true, groups: ['staff', ADMIN_GROUP] };
  op = await startOidcProvider(oidcPort, {
    redirectUris: [`${s.url}/login/sso/callback`],
    postLogoutRedirectUris: [`${s.url}/login`],
    clientSecret: 'owners-client-secret',
    accounts,
  });
  const cert = fs.readFileSync(keys.cert_file, 'utf8');
  idp.setServiceProviders([
    {
      entityId: `${s.url}/login/uni/metadata`,
      acs: `${s.url}/login/uni/callback`,
      slo: `${s.url}/login/uni/logout`,
      certPem: cert,
    },
  ]);
  // The first start's admin, as `serve` makes it.
  adminPassword = (await s.app.services.accounts.ensureInitialAdmin())!;
  assert.ok(adminPassword);
  cfgFile = path.join(s.dir, 'ferry-cli.json');
  fs.writeFileSync(
    cfgFile,
    JSON.stringify({
      data_dir: path.join(s.dir, 'data'),
      mail: { transport: null },
      purge_interval_s: 0,
      database_url: s.app.config.database_url,
      auth: { sp },
    }),
  );
});
test.after(async () => {
  await s?.close();
  await op?.close();
  await idp?.close();
  await dir?.close();
});

/** What one sign-in attempt ended in: a session (its cookie) or a refusal (status, and the reason or error id). */
interface Outcome {
  status: number;
  cookie: string | null;
  why: string | null;
}

/** How a browser's sign-in through an identity provider ended: the page's answer and the session cookie it left. */
async function outcomeOf(jar: CookieJar, res: Response): Promise<Outcome> {
  const page = await res.text();
  const session = jar.get(s.url, 'ferry_session');
  return {
    status: res.status,
    cookie: session ? `ferry_session=${session}` : null,
    why: /data-reason="([^"]+)"/.exec(page)?.[1] ?? null,
  };
}

async function viaOidc(uid: string): Promise<Outcome> {
  const jar = new CookieJar();
  return outcomeOf(jar, await visit(jar, await toCallback(jar, s.url, 'sso', uid)));
}

async function viaSaml(uid: string): Promise<Outcome> {
  const jar = new CookieJar();
  return outcomeOf(jar, await postAnswer(jar, await toAssertion(jar, s.url, 'uni', uid, pw(uid))));
}

async function viaPassword(route: string, uid: string, password: string): Promise<Outcome> {
  const r = await s.request('POST', route, { json: { user_id: uid, password } });
  const cookie = r.headers.get('set-cookie')?.split(';')[0] ?? null;
  return { status: r.status, cookie: r.status === 200 ? cookie : null, why: r.json?.message ?? null };
}

async function viaProxy(uid: string): Promise<Outcome> {
  const r = await s.request('GET', '/user', {
    headers: { 'X-Remote-User': uid, 'X-Remote-Email': `${uid}@proxy.example` },
  });
  return {
    status: r.status,
    cookie: r.status === 200 && r.json.id === uid ? 'proxy' : null,
    why: r.json?.message ?? null,
  };
}

/** Provider `kind` vouches for `uid` (each with the password its own identity server knows). */
function signIn(kind: Kind, uid: string): Promise<Outcome> {
  switch (kind) {
    case 'local':
      return viaPassword('/login/local', uid, uid === 'admin' ? adminPassword : LOCAL_PW);
    case 'proxy':
      return viaProxy(uid);
    case 'sso':
      return viaOidc(uid);
    case 'dir':
      return viaPassword('/login/dir', uid, pw(uid));
    case 'uni':
      return viaSaml(uid);
  }
}

const emailsOf = async (uid: string) => (await s.app.services.users.emails(uid)).sort();

test('every pair of kinds: each provider makes its own account, and no other provider signs in to it', async () => {
  await s.app.services.accounts.addUser(target('local'), [`${target('local')}@local.example`], LOCAL_PW);
  for (const kind of KINDS) {
    // Made at the first sign-in, entered again at the second.
    for (const round of [1, 2]) {
      const own = await signIn(kind, target(kind));
      assert.is(own.status, kind === 'sso' || kind === 'uni' ? 302 : 200, `${kind} round ${round}: ${own.why}`);
      assert.ok(own.cookie, `${kind} signs in to its own account`);
    }
  }
  const before = new Map<string, string[]>();
  for (const uid of IDS) before.set(uid, await emailsOf(uid));
  let cases = 0;
  for (const b of KINDS) {
    for (const uid of IDS) {
      if (uid === target(b) || (b === 'local' && uid === 'admin')) continue;
      const got = await signIn(b, uid);
      cases++;
      assert.is(got.cookie, null, `${b} signed in to ${uid}`);
      if (b === 'local') {
        // No local password on another provider's account: a local sign-in is a wrong password, and an operator
        // cannot give it one.
        assert.is(got.status, 401, `${b} → ${uid}`);
        const set = await s.request('POST', '/login/local', { json: { user_id: uid, password: LOCAL_PW } });
        assert.is(set.status, 401);
        const refusal = await s.app.services.accounts.setPassword(uid, LOCAL_PW).then(
          () => null,
          (e: Error) => e.message,
        );
        assert.is(refusal, 'login_account_elsewhere', uid);
        continue;
      }
      assert.is(got.status, 403, `${b} → ${uid}: ${got.why}`);
      assert.is(got.why, b === 'sso' || b === 'uni' ? 'other_account' : 'login_account_elsewhere', `${b} → ${uid}`);
    }
  }
  assert.is(cases, 5 * IDS.length - 6);
  // Nothing of the accounts changed: their e-mail addresses, and only the built-in admin is an admin.
  for (const uid of IDS) assert.equal(await emailsOf(uid), before.get(uid), uid);
  for (const uid of IDS) assert.is(await s.app.services.users.isAdmin(uid), uid === 'admin', uid);
  const lines = logged.lines.filter((l) => l.includes('(other_account)'));
  assert.ok(
    lines.some((l) => l.includes('user id admin is not an account of "dir" (it belongs to "local"')),
    lines.join('\n'),
  );
  // The built-in admin still signs in with its password, through the form of POST /login too.
  assert.is((await viaPassword('/login', 'admin', adminPassword)).status, 200);
});

test('an operator links accounts on purpose: ferry user link / unlink; a local account cannot be linked', async () => {
  const cli = async (...args: string[]) => {
    const out: string[] = [];
    const code = await runCli([...args, '-c', cfgFile], {
      out: (t) => out.push(t),
      err: (t) => out.push(t),
      readStdin: async () => '',
    });
    return { code, out: out.join('\n') };
  };
  const uid = target('dir');
  assert.is((await signIn('sso', uid)).status, 403);
  const linked = await cli('user', 'link', uid, 'sso');
  assert.is(linked.code, 0, linked.out);
  const via = await signIn('sso', uid);
  assert.is(via.status, 302, String(via.why));
  const me = await s.request('GET', '/user', { headers: { Cookie: via.cookie! } });
  assert.is(me.json.id, uid);
  // Still the directory's account, and the other providers still stay out.
  assert.is((await signIn('uni', uid)).status, 403);
  const list = JSON.parse((await cli('user', 'list', '--json')).out) as { id: string; provider: string }[];
  assert.equal(
    list.find((u) => u.id === uid),
    { id: uid, emails: [`${uid}@sso.example`], local: false, admin: true, provider: 'dir', links: ['sso'] },
  );
  assert.is((await cli('user', 'unlink', uid, 'sso')).code, 0);
  assert.is((await signIn('sso', uid)).status, 403);
  const local = await cli('user', 'link', 'admin', 'dir');
  assert.is(local.code, 1);
  assert.match(local.out, /login_account_elsewhere/);
  assert.is((await signIn('dir', 'admin')).status, 403);
  assert.is((await cli('user', 'link', uid, 'nope')).code, 1);
});

test("admin rights from a provider's groups show: GET /user is_admin and the user list's admin (OpenID, LDAP, SAML)", async () => {
  const boss = await viaOidc('boss');
  const signedIn = {
    boss,
    ops: await viaPassword('/login/dir', 'ops', 'directory ops pw'),
    chief: await viaSaml('chief'),
  };
  for (const [uid, got] of Object.entries(signedIn)) {
    assert.ok(got.cookie, `${uid}: ${got.status} ${got.why}`);
    const me = await s.request('GET', '/user', { headers: { Cookie: got.cookie! } });
    assert.is(me.json.is_admin, true, uid);
  }
  const all = await s.request('GET', '/user/@all', { headers: { Cookie: boss.cookie! } });
  assert.is(all.status, 200, all.text);
  const rows = all.json as { id: string; admin: boolean; admin_by_provider: boolean; provider: string }[];
  for (const [uid, provider] of [
    ['boss', 'sso'],
    ['ops', 'dir'],
    ['chief', 'uni'],
  ]) {
    const row = rows.find((u) => u.id === uid);
    assert.equal([row?.admin, row?.admin_by_provider, row?.provider], [true, true, provider], uid);
  }
  // A user without the group: neither.
  const plain = await viaPassword('/login/dir', 'svc', 'directory svc pw');
  assert.is(plain.status, 200);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: plain.cookie! } })).json.is_admin, false);
});

test('POST /login for scripts finds the account in whichever password provider holds it, with the directory up and down', async () => {
  const svc = 'svc-local';
  await s.app.services.accounts.addUser(svc, ['svc-local@example.org'], 'service password 1');
  for (const state of ['up', 'down'] as const) {
    if (state === 'down') await dir.stop();
    try {
      // A local account: checked against its own password only, whatever the directory does.
      const local = await viaPassword('/login', svc, 'service password 1');
      assert.is(local.status, 200, `${state}: ${local.why}`);
      assert.is((await s.request('GET', '/user', { headers: { Cookie: local.cookie! } })).json.id, svc);
      assert.is((await viaPassword('/login', svc, 'wrong password 1')).status, 401, state);
      assert.is((await viaPassword('/login/local', svc, 'service password 1')).status, 200, state);
      // A directory user: through the directory when it answers, 503 when it cannot be asked.
      const person = await viaPassword('/login', 'svc', 'directory svc pw');
      assert.is(person.status, state === 'up' ? 200 : 503, `${state}: ${person.why}`);
      if (state === 'down') assert.is(person.why, 'login_provider_unavailable');
      assert.is((await viaPassword('/login/dir', 'svc', 'directory svc pw')).status, state === 'up' ? 200 : 503);
      assert.is((await viaPassword('/login', 'svc', 'not the password')).status, state === 'up' ? 401 : 503);
    } finally {
      if (state === 'down') await dir.start();
    }
  }
});

test('an OpenID provider that went down is looked up again: its sign-in button gives the 503 page, then works once it is back', async () => {
  const jar = new CookieJar();
  const callback = await toCallback(jar, s.url, 'sso', 'boss');
  const port = Number(new URL(op.issuer).port);
  await op.close();
  try {
    const exchange = await visit(jar, callback);
    assert.is(exchange.status, 503, (await exchange.text()).slice(0, 300));
    const start = await visit(new CookieJar(), `${s.url}/login/sso`);
    const page = await start.text();
    assert.is(start.status, 503, `${start.headers.get('location')} ${page.slice(0, 200)}`);
    assert.match(page, /data-reason="unavailable"/);
  } finally {
    op = await startOidcProvider(port, {
      redirectUris: [`${s.url}/login/sso/callback`],
      postLogoutRedirectUris: [`${s.url}/login`],
      clientSecret: 'owners-client-secret',
      accounts: { boss: { email: 'boss@sso.example', email_verified: true, groups: [ADMIN_GROUP] } },
    });
  }
  const again = await visit(new CookieJar(), `${s.url}/login/sso`);
  assert.is(again.status, 302);
  assert.ok(again.headers.get('location')?.startsWith(op.issuer));
  assert.is((await viaOidc('boss')).status, 302);
});

test.run();
