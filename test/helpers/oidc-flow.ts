/**
 * Drives a browser's way through an OpenID sign-in without a browser: fetch with a cookie jar, following
 * redirects one by one, filling the provider's development sign-in and consent forms. It stops at ferry's
 * callback, so a test can send it as it is, tampered or twice.
 */
import * as assert from 'uvu/assert';
import type { TestResponse, TestServer } from './server';
export class CookieJar {
  private readonly byHost = new Map<string, Map<string, string>>();

  store(url: string, res: Response): void {
    const host = new URL(url).host;
    const jar = this.byHost.get(host) ?? new Map<string, string>();
    this.byHost.set(host, jar);
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const gone =
        value === '' || attrs.some((a) => /max-age=0\b/i.test(a.trim()) || /expires=Thu, 01 Jan 1970/i.test(a.trim()));
      if (gone) jar.delete(name);
      else jar.set(name, value);
    }
  }

  header(url: string): string {
    const jar = this.byHost.get(new URL(url).host);
    return jar ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  }

  get(url: string, name: string): string | undefined {
    return this.byHost.get(new URL(url).host)?.get(name);
  }
}

export async function visit(
  jar: CookieJar,
  url: string,
  init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'text/html', ...(init.headers ?? {}) };
  const cookie = jar.header(url);
  if (cookie) headers.Cookie = cookie;
  let body: string | undefined;
  if (init.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const res = await fetch(url, {
    method: init.method ?? (body ? 'POST' : 'GET'),
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(20_000),
  });
  jar.store(url, res);
  return res;
}

/**
 * One step of a sign-in walked by hand: `url` visited, either the URL its redirect names (`next`) or the page it
 * answered with 200; any other answer fails the test with the start of its body.
 */
export async function signInStep(jar: CookieJar, url: string): Promise<{ next: string } | { page: string }> {
  const res = await visit(jar, url);
  if (res.status >= 300 && res.status < 400) return { next: new URL(res.headers.get('location')!, url).href };
  const page = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${page.slice(0, 500)}`);
  return { page };
}

/**
 * From ferry's sign-in button to the provider's answer: returns the callback URL the provider sent the browser
 * to (not yet visited). `account` is the login typed at the provider's development form.
 */
export async function toCallback(
  jar: CookieJar,
  ferryUrl: string,
  providerId: string,
  account: string,
): Promise<string> {
  let url = `${ferryUrl}/login/${providerId}?return=%2F%3Fs%3Dtransfers`;
  for (let step = 0; step < 20; step++) {
    if (url.startsWith(`${ferryUrl}/login/${providerId}/callback`)) return url;
    const hop = await signInStep(jar, url);
    if ('next' in hop) {
      url = hop.next;
      continue;
    }
    const { page } = hop;
    const action = new URL(/<form[^>]*action="([^"]+)"/.exec(page)?.[1] ?? url, url).href;
    const form: Record<string, string> = /name="login"/.test(page)
      ? { prompt: 'login', login: account, password: 'any' }
      : { prompt: 'consent' };
    const posted = await visit(jar, action, { form });
    if (posted.status < 300 || posted.status >= 400) throw new Error(`${action} answered ${posted.status}`);
    url = new URL(posted.headers.get('location')!, action).href;
  }
  throw new Error('the sign-in did not come back to ferry in 20 steps');
}

/**
 * A sign-in's last answer (`res`) sent the browser to its transfers page with a session: answers GET /user as
 * that session sees it.
 */
export async function landedSignedIn(
  s: Pick<TestServer, 'request' | 'url'>,
  jar: CookieJar,
  res: Response,
): Promise<TestResponse> {
  assert.is(res.status, 302, await res.text());
  assert.is(res.headers.get('location'), '/?s=transfers');
  const me = await s.request('GET', '/user', {
    headers: { Cookie: `ferry_session=${jar.get(s.url, 'ferry_session')}` },
  });
  assert.is(me.status, 200);
  return me;
}

/** Signs out at ferry (GET /logout), which must redirect: answers where it sends the browser next. */
export async function loggedOutTo(jar: CookieJar, ferryUrl: string): Promise<URL> {
  const res = await visit(jar, `${ferryUrl}/logout`);
  assert.is(res.status, 302);
  return new URL(res.headers.get('location')!);
}
