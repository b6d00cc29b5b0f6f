import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signXml } from '@node-saml/node-saml/lib/xml';
import { freePort, startTestServer, tempDir, type TestServer } from '../helpers/server';
import { capturingLogger } from '../helpers/session';
import { signedPath } from '../helpers/signing';
import { FileSenderPy } from '../helpers/filesender-py';
import { startIdp, type IdpServiceProvider, type TestIdp } from '../helpers/system/simplesamlphp';
import { CookieJar, postAnswer, samlKeysByCli, toAssertion, visit, type SamlAnswer } from '../helpers/saml-flow';
import { landedSignedIn, loggedOutTo } from '../helpers/oidc-flow';
import { selfSignedCertificate } from '../../src/auth/providers/saml/self-signed';

// SAML 2.0 against a real identity provider: Debian's SimpleSAMLphp, run here under `php -S` with its
// exampleauth users. ferry's service providers: `uni` (the main one; an entitlement makes admins), `enc` (the
// IdP encrypts its assertions), `short` (the IdP's assertions live 3 s; no clock skew allowed), `other` (whose
// answers are posted to `uni`: the wrong audience), `fed` (two IdPs: the discovery page), `signed` and
// `badsig` (metadata checked against the right and a wrong signing certificate), `fromfile` (metadata from a
// file). Bad answers are made from real answers of the IdP: signatures removed, a value edited, re-signed with
// another key, expired, replayed.
let s: TestServer;
let idp: TestIdp;
let idp2: TestIdp;
const logged = capturingLogger();
const ADMIN = 'urn:mace:example.org:ferry:admin';
let keys: { key_file: string; cert_file: string };

const users = {
  alice: {
    password: 'alice pw',
    attributes: {
      eduPersonPrincipalName: ['alice@example.org'],
      mail: ['alice@example.org', 'a.smith@lab.example.org'],
      displayName: ['Alice Smith'],
      eduPersonEntitlement: ['urn:mace:example.org:staff'],
    },
  },
  boss: {
    password: 'boss pw',
    attributes: {
      eduPersonPrincipalName: ['boss@example.org'],
      mail: ['boss@example.org'],
      cn: ['The Boss'],
      eduPersonEntitlement: [ADMIN],
    },
  },
  legacy: { password: 'legacy pw', attributes: { uid: ['legacy7'], mail: ['legacy@example.org'] } },
  nomail: { password: 'nomail pw', attributes: { eduPersonPrincipalName: ['nomail@example.org'] } },
};

test.before(async () => {
  const dir = tempDir();
  // The service provider's key pair, made as an admin makes it.
  keys = await samlKeysByCli(dir);
  assert.is(fs.statSync(keys.key_file).mode & 0o777, 0o600);
  const [port, port2] = [await freePort(), await freePort()];
  const md = (p: number) => `http://127.0.0.1:${p}/saml2/idp/metadata.php`;
  const wrongCert = path.join(dir, 'wrong.pem');
  fs.writeFileSync(wrongCert, selfSignedCertificate('not-the-federation', 1, 2048).certPem);
  const idp2Cert = path.join(dir, 'idp2.pem');
  // Every one of these service providers signs in the same people of the same identity providers: the operator
  // says so (docs/single-sign-on.md, "User ids of several providers"), else each would own the accounts it made.
  const ids = ['uni', 'enc', 'short', 'other', 'fed', 'signed', 'badsig', 'fromfile'];
  const sp = (id: string, extra: Record<string, unknown> = {}) => ({
    type: 'saml',
    id,
    label: `SAML ${id}`,
    ...keys,
    idp_metadata: [md(port)],
    link_accounts_of: ids.filter((other) => other !== id),
    ...extra,
  });
  idp = await startIdp(users, { port });
  idp2 = await startIdp(users, { port: port2, signMetadata: true });
  fs.writeFileSync(idp2Cert, idp2.certPem);
  const mdFile = path.join(dir, 'idp-metadata.xml');
  fs.writeFileSync(mdFile, await (await fetch(md(port))).text());
  s = await startTestServer(
    {
      auth: {
        sp: [
          sp('uni', { label: 'Example University', admin_values: [ADMIN] }),
          sp('enc'),
          sp('short', { clock_skew_s: 0 }),
          sp('other'),
          sp('fed', { idp_metadata: [md(port), md(port2)] }),
          sp('signed', { idp_metadata: [md(port2)], metadata_cert_file: idp2Cert }),
          sp('badsig', { idp_metadata: [md(port2)], metadata_cert_file: wrongCert }),
          sp('fromfile', { idp_metadata: [mdFile] }),
        ],
      },
    },
    { log: logged.log },
  );
  const cert = fs.readFileSync(keys.cert_file, 'utf8');
  const remote = (id: string, extra: Partial<IdpServiceProvider> = {}): IdpServiceProvider => ({
    entityId: `${s.url}/login/${id}/metadata`,
    acs: `${s.url}/login/${id}/callback`,
    slo: `${s.url}/login/${id}/logout`,
    certPem: cert,
    ...extra,
  });
  idp.setServiceProviders([
    remote('uni'),
    remote('enc', { encrypt: true }),
    remote('short', { lifetimeS: 3 }),
    remote('other'),
    remote('fed'),
    remote('fromfile'),
  ]);
  idp2.setServiceProviders([remote('fed'), remote('signed')]);
});
test.after(async () => {
  await s?.close();
  await idp?.close();
  await idp2?.close();
});

const session = (jar: CookieJar, url = s.url) => `ferry_session=${jar.get(url, 'ferry_session')}`;

async function signIn(
  user: keyof typeof users,
  provider = 'uni',
): Promise<{ jar: CookieJar; res: Response; answer: SamlAnswer }> {
  const jar = new CookieJar();
  const answer = await toAssertion(jar, s.url, provider, user, users[user].password);
  const res = await postAnswer(jar, answer);
  return { jar, res, answer };
}

function assertNoSecretsLogged(extra: string[] = []): void {
  const text = logged.lines.join('\n');
  for (const secret of [fs.readFileSync(keys.key_file, 'utf8').split('\n')[1], ...extra])
    assert.not.ok(text.includes(secret), 'a secret reached the log');
}

/** The refusal a person sees: a page in HTML with the reason, no session, and exactly one log line saying why. */
async function refused(
  post: () => Promise<Response>,
  jar: CookieJar,
  provider: string,
  status: number,
  reason: string,
  why: RegExp,
): Promise<void> {
  const before = logged.lines.length;
  const res = await post();
  const page = await res.text();
  assert.is(res.status, status, page.slice(0, 400));
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.match(page, new RegExp(`data-reason="${reason}"`));
  assert.not.match(page, /at .*\.[jt]s:\d+/);
  assert.is(jar.get(s.url, 'ferry_session'), undefined);
  const lines = logged.lines.slice(before).filter((l) => l.includes(`sign-in through ${provider} refused`));
  assert.is(lines.length, 1, logged.lines.slice(before).join('\n'));
  assert.match(lines[0], why, lines[0]);
}

/** An answer whose XML no longer carries the IdP's good signature, refused to the person at `uni`. */
const refusedAsForged = (jar: CookieJar, answer: SamlAnswer, xml: string) =>
  refused(() => postAnswer(jar, withXml(answer, xml)), jar, 'uni', 400, 'failed', /refused: Invalid signature/);

const responseXml = (a: SamlAnswer) => Buffer.from(a.form.SAMLResponse, 'base64').toString('utf8');
const withXml = (a: SamlAnswer, xml: string): SamlAnswer => ({
  acs: a.acs,
  form: { ...a.form, SAMLResponse: Buffer.from(xml, 'utf8').toString('base64') },
});
const unsigned = (xml: string) => xml.replace(/<ds:Signature\b[\s\S]*?<\/ds:Signature>/g, '');

test('the service provider metadata: entity id, ACS, SLO, and the signing and encryption certificate', async () => {
  const res = await s.request('GET', '/login/uni/metadata');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/samlmetadata\+xml/);
  const xml = res.text;
  assert.match(xml, new RegExp(`entityID="${s.url}/login/uni/metadata"`));
  assert.match(
    xml,
    new RegExp(
      `AssertionConsumerService [^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${s.url}/login/uni/callback"`,
    ),
  );
  assert.match(
    xml,
    new RegExp(
      `SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${s.url}/login/uni/logout"`,
    ),
  );
  assert.match(xml, /AuthnRequestsSigned="true"/);
  const b64 = fs.readFileSync(keys.cert_file, 'utf8').replace(/-----[^-]+-----|\s/g, '');
  for (const use of ['signing', 'encryption'])
    assert.match(
      xml.replace(/\s/g, ''),
      new RegExp(`<KeyDescriptoruse="${use}">.*?${b64.slice(0, 40).replace(/[+/]/g, '\\$&')}`),
    );
});

test('login: a signed AuthnRequest, a signed answer; uid from eduPersonPrincipalName, both addresses, display name', async () => {
  const jar = new CookieJar();
  const answer = await toAssertion(jar, s.url, 'uni', 'alice', users.alice.password);
  assert.is(answer.acs, `${s.url}/login/uni/callback`);
  const res = await postAnswer(jar, answer);
  const me = await landedSignedIn(s, jar, res);
  assert.is(me.json.id, 'alice@example.org');
  assert.equal([...me.json.email].sort(), ['a.smith@lab.example.org', 'alice@example.org']);
  const row = (
    await s.app.db.query<{ display_name: string }>("SELECT display_name FROM users WHERE id = 'alice@example.org'")
  )[0];
  assert.is(row.display_name, 'Alice Smith');
  // Not an admin: her entitlement is not the configured one.
  assert.is((await s.request('GET', '/usage', { headers: { Cookie: session(jar) } })).status, 403);
  assertNoSecretsLogged([answer.form.SAMLResponse.slice(0, 60)]);
});

test('without eduPersonPrincipalName the uid comes from uid; the name from cn', async () => {
  const { jar, res } = await signIn('legacy');
  assert.is(res.status, 302);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: session(jar) } })).json.id, 'legacy7');
});

test('a user with two addresses sends from either of them, and from no other', async () => {
  const { jar } = await signIn('alice');
  const page = await s.request('GET', '/', { headers: { Cookie: session(jar), Accept: 'text/html' } });
  const csrf = /<meta name="ferry-security-token" content="([^"]+)">/.exec(page.text)![1];
  const headers = { Cookie: session(jar), 'X-Ferry-Security-Token': csrf };
  for (const from of ['alice@example.org', 'a.smith@lab.example.org']) {
    const r = await s.request('POST', '/guest', { json: { recipient: 'guest@example.net', from }, headers });
    assert.is(r.status, 201, r.text);
  }
  const bad = await s.request('POST', '/guest', {
    json: { recipient: 'guest@example.net', from: 'someone@else.example' },
    headers,
  });
  assert.ok(bad.status >= 400 && bad.status < 500, bad.text);
});

test('the entitlement makes an admin (admin_values)', async () => {
  const { jar, res } = await signIn('boss');
  assert.is(res.status, 302);
  assert.is((await s.request('GET', '/usage', { headers: { Cookie: session(jar) } })).status, 200);
});

test('an answer with no e-mail address: a clear page saying so', async () => {
  const jar = new CookieJar();
  const answer = await toAssertion(jar, s.url, 'uni', 'nomail', users.nomail.password);
  await refused(() => postAnswer(jar, answer), jar, 'uni', 403, 'no_email', /no "mail" attribute/);
});

test('an unsigned answer (the real answer with its signatures taken out): refused', async () => {
  const jar = new CookieJar();
  const answer = await toAssertion(jar, s.url, 'uni', 'alice', users.alice.password);
  const xml = responseXml(answer);
  assert.match(xml, /<ds:Signature/);
  await refusedAsForged(jar, answer, unsigned(xml));
});

test('an edited answer (another uid, not signed again): refused', async () => {
  const jar = new CookieJar();
  const answer = await toAssertion(jar, s.url, 'uni', 'alice', users.alice.password);
  const xml = responseXml(answer);
  assert.ok(xml.includes('>alice@example.org<'));
  await refusedAsForged(jar, answer, xml.split('>alice@example.org<').join('>boss@example.org<'));
});

test("an answer signed again with a key that is not the IdP's: refused", async () => {
  const jar = new CookieJar();
  const answer = await toAssertion(jar, s.url, 'uni', 'alice', users.alice.password);
  const other = selfSignedCertificate('not-the-idp', 1, 2048);
  const assertion = "//*[local-name(.)='Assertion']";
  const resigned = signXml(
    unsigned(responseXml(answer)),
    assertion,
    { reference: `${assertion}/*[local-name(.)='Issuer']`, action: 'after' },
    { privateKey: other.keyPem, publicCert: other.certPem, signatureAlgorithm: 'sha256' },
  );
  assert.match(resigned, /<(ds:)?Signature/);
  await refusedAsForged(jar, answer, resigned);
});

test('the wrong audience: an answer the IdP made for another service provider, posted to this one', async () => {
  const jar = new CookieJar();
  // The browser's flow is the other provider's (so InResponseTo matches): only the audience is wrong.
  const answer = await toAssertion(jar, s.url, 'other', 'alice', users.alice.password);
  const flow = jar.get(s.url, 'ferry_login_flow')!;
  const misdirected = { ...answer, acs: `${s.url}/login/uni/callback` };
  await refused(
    () => postAnswer(jar, misdirected, { headers: { Cookie: `ferry_login_flow=${flow}` } }),
    jar,
    'uni',
    400,
    'failed',
    /audience mismatch/,
  );
});

test('an expired assertion (NotOnOrAfter passed; the IdP gives 3 s, clock_skew_s is 0): refused', async () => {
  // Posted at once, the same provider's answer signs in: what follows fails for its time alone.
  assert.is((await signIn('alice', 'short')).res.status, 302);
  const jar = new CookieJar();
  const answer = await toAssertion(jar, s.url, 'short', 'alice', users.alice.password);
  const notOnOrAfter = Date.parse(/Conditions NotBefore="[^"]+" NotOnOrAfter="([^"]+)"/.exec(responseXml(answer))![1]);
  // The assertion's own time passes (the case under test): a wait until its NotOnOrAfter, and a little more.
  await new Promise((r) => setTimeout(r, Math.max(0, notOnOrAfter - Date.now()) + 300));
  await refused(() => postAnswer(jar, answer), jar, 'short', 400, 'failed', /No valid subject confirmation|expired/i);
});

test('an answer to no request of this browser (no flow cookie; an unsolicited answer): refused', async () => {
  const answer = await toAssertion(new CookieJar(), s.url, 'uni', 'alice', users.alice.password);
  const jar = new CookieJar();
  await refused(() => postAnswer(jar, answer), jar, 'uni', 400, 'failed', /no sign-in of this browser is waiting/);
});

test('a replayed assertion on a second node (same database): refused there; a fresh one signs in there', async () => {
  const node2 = await startTestServer(
    {
      base_url: s.url,
      data_dir: s.app.config.data_dir,
      database_url: s.app.config.database_url,
      auth: s.app.config.auth,
    },
    { log: logged.log },
  );
  try {
    const jar = new CookieJar();
    const answer = await toAssertion(jar, s.url, 'uni', 'alice', users.alice.password);
    const flow = jar.get(s.url, 'ferry_login_flow')!;
    assert.is((await postAnswer(jar, answer)).status, 302);
    // The same answer and the same browser's flow, at the second node (its ACS is the same public address).
    const replay = new CookieJar();
    const toNode2 = { ...answer, acs: `${node2.url}/login/uni/callback` };
    await refused(
      () => postAnswer(replay, toNode2, { headers: { Cookie: `ferry_login_flow=${flow}` } }),
      replay,
      'uni',
      400,
      'failed',
      /already used \(a replay\)/,
    );
    // A new sign-in's answer is taken by the second node.
    const jar2 = new CookieJar();
    const fresh = await toAssertion(jar2, s.url, 'uni', 'alice', users.alice.password);
    const res = await postAnswer(
      jar2,
      { ...fresh, acs: `${node2.url}/login/uni/callback` },
      { headers: { Cookie: `ferry_login_flow=${jar2.get(s.url, 'ferry_login_flow')}` } },
    );
    assert.is(res.status, 302, await res.text());
  } finally {
    await node2.close();
  }
});

test("an encrypted assertion is decrypted with ferry's key and signs in", async () => {
  const jar = new CookieJar();
  const answer = await toAssertion(jar, s.url, 'enc', 'alice', users.alice.password);
  const xml = responseXml(answer);
  assert.match(xml, /EncryptedAssertion/);
  assert.not.ok(xml.includes('alice@example.org'), 'the attributes travel encrypted');
  const res = await postAnswer(jar, answer);
  assert.is(res.status, 302, await res.text());
  assert.is((await s.request('GET', '/user', { headers: { Cookie: session(jar) } })).json.id, 'alice@example.org');
});

test("SP-initiated logout: ferry's session ends, a signed LogoutRequest goes to the IdP, which comes back to ferry", async () => {
  const { jar } = await signIn('alice');
  const cookie = session(jar);
  const to = await loggedOutTo(jar, s.url);
  assert.is(`${to.origin}${to.pathname}`, `${idp.baseUrl}saml2/idp/SingleLogoutService.php`);
  assert.ok(to.searchParams.get('SAMLRequest') && to.searchParams.get('Signature'));
  const request = zlib.inflateRawSync(Buffer.from(to.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
  assert.match(request, /<samlp:LogoutRequest/);
  assert.match(request, /SessionIndex/);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: cookie } })).status, 401);
  let next = to.href;
  for (let i = 0; i < 10 && !next.startsWith(`${s.url}/login/uni/logout`); i++) {
    const r = await visit(jar, next);
    assert.ok(r.status >= 300 && r.status < 400, `${next}: ${r.status} ${(await r.text()).slice(0, 300)}`);
    next = new URL(r.headers.get('location')!, next).href;
  }
  assert.ok(new URL(next).searchParams.get('SAMLResponse'), next);
  const back = await visit(jar, next);
  assert.is(back.status, 302);
  assert.is(back.headers.get('location'), '/login');
  // The IdP's session has ended too: the next sign-in asks for the password again.
  const again = await visit(jar, `${s.url}/login/uni`);
  const page = await visit(jar, again.headers.get('location')!);
  const login =
    page.status === 302
      ? await visit(jar, new URL(page.headers.get('location')!, again.headers.get('location')!).href)
      : page;
  assert.match(await login.text(), /name="password"/);
});

test("IdP-initiated logout: the IdP's signed LogoutRequest ends the ferry session, and the IdP gets its answer", async () => {
  const { jar } = await signIn('alice');
  const cookie = session(jar);
  let next = `${idp.baseUrl}saml2/idp/SingleLogoutService.php?ReturnTo=${encodeURIComponent(`${idp.baseUrl}logged-out`)}`;
  let sawFerry = false;
  for (let i = 0; i < 12 && !next.startsWith(`${idp.baseUrl}logged-out`); i++) {
    if (next.startsWith(`${s.url}/login/uni/logout`)) {
      sawFerry = true;
      assert.ok(new URL(next).searchParams.get('Signature'), 'the LogoutRequest is signed');
    }
    const r = await visit(jar, next);
    assert.ok(r.status >= 300 && r.status < 400, `${next}: ${r.status} ${(await r.text()).slice(0, 300)}`);
    next = new URL(r.headers.get('location')!, next).href;
  }
  assert.ok(sawFerry, 'the IdP sent its LogoutRequest to ferry');
  assert.is((await s.request('GET', '/user', { headers: { Cookie: cookie } })).status, 401);
});

test("an unsigned LogoutRequest is refused (no one else ends a person's sessions)", async () => {
  const { jar } = await signIn('alice');
  const xml = `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_x1" Version="2.0" IssueInstant="${new Date().toISOString()}"><saml:Issuer>${idp.entityId}</saml:Issuer><saml:NameID>anyone</saml:NameID></samlp:LogoutRequest>`;
  const q = encodeURIComponent(zlib.deflateRawSync(Buffer.from(xml)).toString('base64'));
  await refused(
    () => visit(new CookieJar(), `${s.url}/login/uni/logout?SAMLRequest=${q}`),
    new CookieJar(),
    'uni',
    400,
    'failed',
    /unsigned LogoutRequest/,
  );
  assert.is((await s.request('GET', '/user', { headers: { Cookie: session(jar) } })).status, 200);
});

test('several IdPs: a discovery page lists them; the one picked signs the person in', async () => {
  const page = await s.request('GET', '/login/fed?return=%2F', { headers: { Accept: 'text/html' } });
  assert.is(page.status, 200);
  const links = [...page.text.matchAll(/data-idp="([^"]+)" href="([^"]+)"/g)].map((m) => ({
    idp: m[1],
    href: m[2].replace(/&amp;/g, '&'),
  }));
  assert.equal(links.map((l) => l.idp).sort(), [idp.entityId, idp2.entityId].sort());
  const jar = new CookieJar();
  const answer = await toAssertion(
    jar,
    s.url,
    'fed',
    'boss',
    users.boss.password,
    `&idp=${encodeURIComponent(idp2.entityId)}`,
  );
  assert.match(responseXml(answer), new RegExp(`<saml:Issuer>${idp2.entityId}</saml:Issuer>`));
  assert.is((await postAnswer(jar, answer)).status, 302);
});

test('metadata checked against a signing certificate: signed by it, sign-in works; by another, a clear 503 page', async () => {
  const { res } = await signIn('alice', 'signed');
  assert.is(res.status, 302);
  const before = logged.lines.length;
  const bad = await visit(new CookieJar(), `${s.url}/login/badsig`);
  const page = await bad.text();
  assert.is(bad.status, 503, page.slice(0, 300));
  assert.match(page, /data-reason="unavailable"/);
  assert.ok(
    logged.lines
      .slice(before)
      .some((l) =>
        /sign-in through badsig refused \(unavailable\): metadata .* refused: its signature does not verify/.test(l),
      ),
    logged.lines.slice(before).join('\n'),
  );
});

test('IdP metadata from a file signs in as from a URL', async () => {
  const { jar, res } = await signIn('alice', 'fromfile');
  assert.is(res.status, 302);
  assert.is((await s.request('GET', '/user', { headers: { Cookie: session(jar) } })).json.id, 'alice@example.org');
});

test('filesender.py with the API string from the profile: a SAML user sends a file, from her second address', async () => {
  const { jar } = await signIn('alice');
  const ini = await s.request('GET', '/user/@me/filesender-python-client-configuration-file', {
    headers: { Cookie: session(jar) },
  });
  assert.is(ini.status, 200, ini.text);
  const value = (k: string) => new RegExp(`^${k} = (\\S+)$`, 'm').exec(ini.text)![1];
  assert.is(value('username'), 'alice@example.org');
  const py = new FileSenderPy({
    baseUrl: value('base_url'),
    username: value('username'),
    apikey: value('apikey'),
    retries: 0,
  });
  const data = Buffer.from('results of the SAML run\n'.repeat(100));
  const { created: t } = await py.postTransfer(
    [{ name: 'results.txt', size: data.length }],
    'friend@example.net',
    'a.smith@lab.example.org',
    Math.floor(Date.now() / 1000) + 7 * 86400,
    'results',
  );
  const f = t.files[0];
  await py.putChunk(t, f, data, 0);
  await py.fileComplete(t, f);
  await py.transferComplete(t);
  const mine = await s.request('GET', '/transfer', { headers: { Cookie: session(jar) } });
  const sent = (mine.json as any[]).find((x) => x.id === t.id);
  assert.ok(sent, mine.text);
  assert.is(sent.status, 'available');
  assert.is(sent.user_email, 'a.smith@lab.example.org');
  // The same API string, signed with another user's name, is refused.
  const p = signedPath({
    method: 'GET',
    host: new URL(s.url).host,
    path: '/user',
    args: { remote_user: 'boss@example.org', timestamp: Math.floor(Date.now() / 1000) },
    secret: value('apikey'),
  });
  assert.ok((await s.request('GET', p)).status >= 400);
});

test.run();
