import * as assert from 'uvu/assert';
import type { TestServer } from './server';
import type { Logger } from '../../src/log';

export interface Session {
  /** `ferry_session=<token>`, ready for a Cookie header. */
  cookie: string;
  /** The security token the pages get (X-Ferry-Security-Token). */
  csrf: string;
  /** The whole Set-Cookie header, for its attributes. */
  setCookie: string;
}

/** Signs in through POST /login (JSON), the way the web page does. */
export async function login(s: TestServer, user: string, password: string): Promise<Session> {
  const r = await s.request('POST', '/login', { json: { user_id: user, password } });
  assert.is(r.status, 200, r.text);
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0], csrf: r.json.csrf_token, setCookie };
}

/** Headers of a cookie-authenticated change: the cookie and its security token. */
export function withSession(sess: Session, extra: Record<string, string> = {}): Record<string, string> {
  return { Cookie: sess.cookie, 'X-Ferry-Security-Token': sess.csrf, ...extra };
}

/** A logger that keeps every line, to check what reaches the log. */
export function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, log: { info: (m) => lines.push(m), error: (m) => lines.push(m) } };
}

/** A clock the test can move (seconds), starting at the real time. */
export function movableClock(): { clock: () => number; advance(s: number): void } {
  let offset = 0;
  return { clock: () => Math.floor(Date.now() / 1000) + offset, advance: (s) => void (offset += s) };
}
