import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer } from '../helpers/server';
import { login } from '../helpers/session';
import fs from 'node:fs';
import path from 'node:path';
import { checkConfig } from '../../src/config/validate';
import { loadConfig } from '../../src/config/load';
import { runCli } from '../../src/cli/program';
import { tempDir } from '../helpers/temp-dir';

// The identity-provider seam: several providers at once (the login page shows each), local login switched
// off, and a session whose provider the config no longer has opens nothing.

const HEADER = {
  type: 'header',
  id: 'proxy',
  uid_header: 'X-Remote-User',
  email_header: 'X-Remote-Email',
  trusted_proxies: ['10.9.9.9'],
};

test('local and a proxy together: the login page shows the form and the proxy line; POST /login and /login/local sign in', async () => {
  const s = await startTestServer({ auth: { sp: [{ type: 'local', label: 'Service accounts' }, HEADER] } });
  try {
    await s.app.services.accounts.addUser('svc', ['svc@example.org'], 'service password 1');
    const page = await s.request('GET', '/login', { headers: { Accept: 'text/html' } });
    assert.is(page.status, 200);
    assert.match(page.text, /<form class="login-form" method="post" action="\/login\/local" data-provider="local">/);
    assert.match(page.text, /<h2>Service accounts<\/h2>/);
    assert.match(page.text, /sign in through your organisation/);
    await login(s, 'svc', 'service password 1');
    const r = await s.request('POST', '/login/local', { json: { user_id: 'svc', password: 'service password 1' } });
    assert.is(r.status, 200);
    assert.is(r.json.user_id, 'svc');
    const unknown = await s.request('POST', '/login/nobody', {
      json: { user_id: 'svc', password: 'service password 1' },
    });
    assert.is(unknown.status, 404);
    assert.is(unknown.json.message, 'rest_endpoint_not_found');
  } finally {
    await s.close();
  }
});

test('local login switched off: no form, POST /login answers 404, and a session of a provider no longer configured opens nothing', async () => {
  const s = await startTestServer({ auth: { sp: [HEADER] } });
  try {
    const page = await s.request('GET', '/login', { headers: { Accept: 'text/html' } });
    assert.not.match(page.text, /login-form/);
    const r = await s.request('POST', '/login', { json: { user_id: 'alice', password: 'correct horse' } });
    assert.is(r.status, 404);
    // A session a local sign-in made before the config changed.
    await s.app.services.users.seen('alice', ['alice@example.org']);
    const old = await s.app.services.accounts.openSession({
      userId: 'alice',
      provider: 'local',
      providerAdmin: false,
      providerRef: null,
      providerData: null,
    });
    const me = await s.request('GET', '/user', { headers: { Cookie: `ferry_session=${old.token}` } });
    assert.is(me.status, 401);
  } finally {
    await s.close();
  }
});

test('config: provider ids are unique, kinds are known, and each kind checks its own keys', () => {
  const twice = checkConfig({ auth: { sp: [{ type: 'local' }, { type: 'local' }] } });
  assert.ok(
    twice.some((p) => p.includes('"local" is used twice')),
    twice.join('\n'),
  );
  const bad = checkConfig({
    auth: { sp: [{ type: 'kerberos' }, { type: 'oidc', issuer: 'x' }, { type: 'ldap', url: 'ldap://h', colour: 1 }] },
  });
  const text = bad.join('\n');
  for (const want of [
    'auth.sp[0].type: must be one of',
    'auth.sp[1].issuer',
    'auth.sp[1].client_id: required',
    'auth.sp[2].colour: unknown key',
  ])
    assert.ok(text.includes(want), `${want} in\n${text}`);
  assert.equal(checkConfig({ auth: { sp: [] } }), ['auth.sp: at least one identity provider, got an empty list']);
});

test('config: link_accounts_of names other providers of auth.sp, never local; "local" is the local provider’s id', () => {
  const oidc = { type: 'oidc', issuer: 'https://op.example', client_id: 'ferry' };
  const ok = checkConfig({
    auth: {
      sp: [{ ...oidc, id: 'sso', link_accounts_of: ['proxy'], adopt_unattributed: true }, HEADER, { type: 'local' }],
    },
  });
  assert.equal(ok, []);
  const text = checkConfig({
    auth: {
      sp: [
        { ...oidc, id: 'sso', link_accounts_of: ['local', 'nope', 'sso'] },
        { type: 'local', id: 'accounts', link_accounts_of: ['sso'] },
      ],
    },
  })
    .concat(checkConfig({ auth: { sp: [{ ...HEADER, id: 'local' }] } }))
    .join('\n');
  for (const want of [
    'link_accounts_of names "local"',
    'link_accounts_of names "nope"',
    'link_accounts_of names "sso"',
    'the id "local" is for the local provider',
    'auth.sp (accounts): a local account is entered with its password only',
  ])
    assert.ok(text.includes(want), `${want} in\n${text}`);
});

test("config: a provider's secret comes from the environment by its id, and ferry config check --json never shows it", async () => {
  const dir = tempDir();
  const file = path.join(dir, 'ferry.json');
  const sp = [
    { type: 'oidc', id: 'sso-2', issuer: 'https://op.example', client_id: 'ferry' },
    { type: 'oidc', id: 'other', issuer: 'https://op.example', client_id: 'ferry', client_secret: 'in-the-file' },
    { type: 'ldap', id: 'dir', url: 'ldap://h', user_base: 'dc=x', bind_dn: 'cn=svc,dc=x' },
  ];
  fs.writeFileSync(file, JSON.stringify({ data_dir: path.join(dir, 'data'), auth: { sp } }));
  const env = {
    FERRY_OIDC_SSO_2_CLIENT_SECRET: 'secret-of-sso-2',
    FERRY_OIDC_CLIENT_SECRET: 'secret-of-any',
    FERRY_LDAP_BIND_PASSWORD: 'password-of-any',
  };
  const got = loadConfig(file, env).config.auth.sp as Array<Record<string, unknown>>;
  assert.equal(
    got.map((e) => e.client_secret ?? e.bind_password),
    ['secret-of-sso-2', 'secret-of-any', 'password-of-any'],
  );
  // Without the password, the LDAP service account is incomplete: the rule says where it may come from.
  assert.throws(() => loadConfig(file, {}), /auth\.sp \(dir\): bind_dn and bind_password go together/);

  const out: string[] = [];
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const code = await runCli(['config', 'check', '--json', '-c', file], {
      out: (t) => out.push(t),
      err: (t) => out.push(t),
      readStdin: async () => '',
    });
    assert.is(code, 0, out.join('\n'));
  } finally {
    // Each variable back as it was before (unset, or its earlier value).
    for (const k of Object.keys(env))
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  }
  const shown = JSON.parse(out.join('\n')).auth.sp as Array<Record<string, unknown>>;
  assert.equal(
    shown.map((e) => e.client_secret ?? e.bind_password),
    ['(set)', '(set)', '(set)'],
  );
  assert.not.match(out.join('\n'), /secret-of|password-of|in-the-file/);
});

test("ferry config check runs each kind's start-up check: a SAML key file that cannot be read is named", async () => {
  const dir = tempDir();
  const file = path.join(dir, 'ferry.json');
  const sp = {
    type: 'saml',
    key_file: path.join(dir, 'no-key.pem'),
    cert_file: path.join(dir, 'no-cert.pem'),
    idp_metadata: [path.join(dir, 'idp.xml')],
  };
  fs.writeFileSync(file, JSON.stringify({ data_dir: path.join(dir, 'data'), auth: { sp } }));
  const err: string[] = [];
  const code = await runCli(['config', 'check', '-c', file], {
    out: () => {},
    err: (t) => err.push(t),
    readStdin: async () => '',
  });
  assert.is(code, 1);
  const text = err.join('\n');
  assert.match(text, `auth.sp (saml) key_file: ${sp.key_file} cannot be read (ENOENT)`);
  assert.match(text, `auth.sp (saml) cert_file: ${sp.cert_file} cannot be read (ENOENT)`);
});

test.run();
