import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, tempDir, TestServer } from '../helpers/server';

// The page shells and /assets, served from source with the assets built into a temp folder.

const assetDir = tempDir('ferry-web-assets-');
execFileSync(process.execPath, [path.resolve(__dirname, '../../scripts/build-web.mjs'), '--out', assetDir], {
  stdio: 'pipe',
});
process.env.FERRY_WEB_ASSETS = assetDir;

let s: TestServer;
test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, admin: ['root'] });
});
test.after(async () => {
  await s.close();
  fs.rmSync(assetDir, { recursive: true, force: true });
});

const scriptsOf = (html: string) => [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);

test('a header-SP user lands signed in on the upload page: user, menu, token meta, assets, strict CSP', async () => {
  const r = await s.request('GET', '/', { headers: asUser('alice', 'alice@example.org') });
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', 'text/html');
  assert.match(r.text, 'data-page="upload"');
  assert.match(r.text, 'alice@example.org');
  assert.match(r.text, '<meta name="ferry-security-token"');
  assert.match(r.text, /<link rel="stylesheet" href="\/assets\/app\.css\?v=[0-9a-f]{16}">/);
  const scripts = scriptsOf(r.text);
  assert.equal(scripts.length, 1);
  assert.match(scripts[0], /src="\/assets\/app\.js\?v=[0-9a-f]{16}"/);
  assert.not.match(r.text, /\son[a-z]+=/i, 'no inline event handlers');
  assert.not.match(r.text, /<style/i, 'no inline style element');
  assert.not.match(r.text, /\sstyle=/i, 'no inline style attribute');
  const csp = r.headers.get('content-security-policy') ?? '';
  assert.match(csp, "script-src 'self'");
  assert.not.match(csp, 'unsafe-inline');
  assert.not.match(r.text, '?s=admin', 'no admin link for a non-admin');
  assert.not.match(r.text, 'href="/logout"', 'no logout for a header-SP session');
});

test('user-supplied strings in the shell are escaped', async () => {
  const evil = 'x"><script>alert(1)</script>@example.org';
  const r = await s.request('GET', '/?s=transfers&lang=fr&x=%22%3E%3Cscript%3E', {
    headers: asUser('mallory"><b>', evil),
  });
  assert.is(r.status, 200);
  assert.not.match(r.text, '<script>alert(1)');
  assert.not.match(r.text, '"><b>');
  assert.not.match(r.text, 'value=""><script>');
  assert.is(scriptsOf(r.text).length, 1);
});

test('each page has its view; admin only for admins; anonymous users get the sign-in page', async () => {
  for (const [q, page] of [
    ['?s=transfers', 'transfers'],
    ['?s=guests', 'guests'],
    ['?s=profile', 'profile'],
    ['?s=upload', 'upload'],
  ]) {
    const r = await s.request('GET', `/${q}`, { headers: asUser('alice') });
    assert.match(r.text, `data-page="${page}"`, q);
  }
  const admin = await s.request('GET', '/?s=admin', { headers: asUser('root') });
  assert.match(admin.text, 'data-page="admin"');
  assert.match(admin.text, 'href="/?s=admin"');
  const refused = await s.request('GET', '/?s=admin', { headers: asUser('alice') });
  assert.is(refused.status, 403);
  assert.not.match(refused.text, 'data-page="admin"');
  const anon = await s.request('GET', '/?s=transfers');
  assert.is(anon.status, 200);
  assert.not.match(anon.text, 'data-page="transfers"');
  assert.match(anon.text, 'You are not signed in', 'header SP: the proxy signs users in');
});

test('language: ?lang= switches and is remembered in a cookie; Accept-Language otherwise', async () => {
  const fr = await s.request('GET', '/?lang=fr', { headers: asUser('alice') });
  assert.match(fr.text, '<html lang="fr">');
  assert.match(fr.text, 'Aller au contenu');
  const cookie = (fr.headers.get('set-cookie') ?? '').split(';')[0];
  assert.match(cookie, 'ferry_lang=fr');
  const again = await s.request('GET', '/', { headers: { ...asUser('alice'), Cookie: cookie } });
  assert.match(again.text, '<html lang="fr">');
  const de = await s.request('GET', '/', { headers: { ...asUser('bob'), 'Accept-Language': 'de-CH,de;q=0.9' } });
  assert.match(de.text, '<html lang="de">');
  assert.match(de.text, 'Zum Inhalt springen');
  for (const l of ['en', 'fr', 'de', 'nl']) assert.match(de.text, `<option value="${l}"`);
  const lang = await s.request('GET', '/lang?lang=nl');
  assert.is(lang.json.ui_send, 'Versturen');
  assert.is(lang.json.option_get_a_link, 'Een link in plaats van e-mails');
});

test('assets: served with their type, immutable when the hash matches, ETag revalidation, 404 otherwise', async () => {
  const page = await s.request('GET', '/', { headers: asUser('alice') });
  const jsUrl = /src="(\/assets\/app\.js\?v=[0-9a-f]+)"/.exec(page.text)![1];
  const js = await s.request('GET', jsUrl);
  assert.is(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', 'text/javascript');
  assert.match(js.headers.get('cache-control') ?? '', 'immutable');
  const etag = js.headers.get('etag')!;
  assert.ok(etag);
  assert.is(js.text, fs.readFileSync(path.join(assetDir, 'app.js'), 'utf8'));
  const plain = await s.request('GET', '/assets/app.css');
  assert.match(plain.headers.get('content-type') ?? '', 'text/css');
  assert.is(plain.headers.get('cache-control'), 'no-cache');
  const revalidated = await s.request('GET', '/assets/app.css', {
    headers: { 'If-None-Match': plain.headers.get('etag')! },
  });
  assert.is(revalidated.status, 304);
  for (const bad of ['/assets/nope.js', '/assets/..%2Fpackage.json', '/assets/manifest.jsonx']) {
    const r = await s.request('GET', bad);
    assert.is(r.status, 404, bad);
    assert.is(r.json?.message, 'rest_endpoint_not_found');
  }
});

test("the upload worker's script carries the worker's own policy (connect to this origin), also when revalidated", async () => {
  const first = await s.request('GET', '/assets/upload-worker.js');
  assert.is(first.status, 200);
  assert.is(first.headers.get('content-security-policy'), "default-src 'none'; connect-src 'self'");
  // A browser keeps the policy of the 304 for the cached script: without it the next upload's worker reached nothing.
  const again = await s.request('GET', '/assets/upload-worker.js', {
    headers: { 'If-None-Match': first.headers.get('etag')! },
  });
  assert.is(again.status, 304);
  assert.is(again.headers.get('content-security-policy'), "default-src 'none'; connect-src 'self'");
});

test('a dead guest link opened in a browser gets a page saying so; API clients keep the JSON error', async () => {
  const page = await s.request('GET', '/?s=upload&vid=no-such-token', {
    headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'Accept-Language': 'fr' },
  });
  assert.is(page.status, 401);
  assert.match(page.headers.get('content-type') ?? '', 'text/html');
  assert.match(page.text, /Ce lien d(&#39;|')invitation n(&#39;|')est pas/);
  assert.match(page.headers.get('content-security-policy') ?? '', "script-src 'self'");
  const api = await s.request('GET', '/?s=upload&vid=no-such-token');
  assert.is(api.status, 401);
  assert.is(api.json?.message, 'guest_token_invalid');
});

test('the login page of a local-SP server keeps the page asked for, and only on this site', async () => {
  const local = await startTestServer({});
  try {
    const r = await local.request('GET', '/?s=transfers');
    assert.match(r.text, 'data-page="login"');
    assert.match(r.text, 'name="return" value="/?s=transfers"');
    assert.match(r.text, 'autocomplete="current-password"');
    const login = await local.request('GET', '/login?return=//evil.example/');
    assert.match(login.text, 'name="return" value="/"', 'no open redirect');
  } finally {
    await local.close();
  }
});

test.run();
