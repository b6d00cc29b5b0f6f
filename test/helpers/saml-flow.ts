import path from 'node:path';
import * as assert from 'uvu/assert';
import { runCli } from '../../src/cli/program';
import { CookieJar, signInStep, visit } from './oidc-flow';

/** The identity provider's answer as its page would post it to ferry's assertion consumer service. */
export interface SamlAnswer {
  acs: string;
  form: Record<string, string>;
}

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#039;|&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** A page's first form: its action (absolute) and its inputs' values. */
function formOf(page: string, base: string): { action: string; fields: Record<string, string> } | null {
  const form = /<form\b[^>]*>[\s\S]*?<\/form>/i.exec(page)?.[0];
  if (!form) return null;
  const action = new URL(decode(/action="([^"]*)"/i.exec(form)?.[1] ?? '') || base, base).href;
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input\b[^>]*>/gi)) {
    const name = /name="([^"]+)"/i.exec(m[0])?.[1];
    if (name) fields[decode(name)] = decode(/value="([^"]*)"/i.exec(m[0])?.[1] ?? '');
  }
  return { action, fields };
}

/**
 * Drives a browser's way through a SAML sign-in without a browser (fetch with a cookie jar, redirects one by
 * one): ferry's button, SimpleSAMLphp's user name and password form, up to the page that would post the
 * response to ferry. Stops there, so a test can post the answer as it is, altered, or twice.
 */
export async function toAssertion(
  jar: CookieJar,
  ferryUrl: string,
  providerId: string,
  user: string,
  password: string,
  query = '',
): Promise<SamlAnswer> {
  let url = `${ferryUrl}/login/${providerId}?return=%2F%3Fs%3Dtransfers${query}`;
  for (let step = 0; step < 20; step++) {
    const hop = await signInStep(jar, url);
    if ('next' in hop) {
      url = hop.next;
      continue;
    }
    const { page } = hop;
    const form = formOf(page, url);
    if (!form) throw new Error(`${url}: no form in ${page.slice(0, 500)}`);
    if ('SAMLResponse' in form.fields) return { acs: form.action, form: form.fields };
    if (!('username' in form.fields))
      throw new Error(`${url}: an unexpected form ${JSON.stringify(Object.keys(form.fields))}`);
    const posted = await visit(jar, form.action, { form: { ...form.fields, username: user, password } });
    if (posted.status === 200) {
      const again = await posted.text();
      const next = formOf(again, form.action);
      if (next && 'SAMLResponse' in next.fields) return { acs: next.action, form: next.fields };
      throw new Error(
        `the identity provider did not sign ${user} in: ${again
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .slice(0, 400)}`,
      );
    }
    if (posted.status < 300 || posted.status >= 400) throw new Error(`${form.action} answered ${posted.status}`);
    url = new URL(posted.headers.get('location')!, form.action).href;
  }
  throw new Error("the sign-in did not reach the identity provider's answer in 20 steps");
}

/** Posts the identity provider's answer to ferry, as its page's auto-submitted form does. */
export function postAnswer(
  jar: CookieJar,
  answer: SamlAnswer,
  extra: { headers?: Record<string, string> } = {},
): Promise<Response> {
  return visit(jar, answer.acs, { form: answer.form, headers: extra.headers });
}

export { CookieJar, visit };

/** A service provider's key pair in `dir`, made with `ferry saml keygen` as an admin makes it. */
export async function samlKeysByCli(dir: string): Promise<{ key_file: string; cert_file: string }> {
  const out: string[] = [];
  const code = await runCli(['saml', 'keygen', '--dir', dir, '--name', 'ferry.test'], {
    out: (t) => out.push(t),
    err: (t) => out.push(t),
    readStdin: async () => '',
  });
  assert.is(code, 0, out.join('\n'));
  return { key_file: path.join(dir, 'saml-sp-key.pem'), cert_file: path.join(dir, 'saml-sp-cert.pem') };
}
