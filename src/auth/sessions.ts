import crypto from 'node:crypto';

export const SESSION_COOKIE = 'ferry_session';
/** A session ends after 8 hours without a request, and 7 days after login whatever happens. */
export const SESSION_IDLE_S = 8 * 3600;
export const SESSION_MAX_S = 7 * 86400;
/** last_seen is written at most once a minute: a write per request would serialise readers behind the WAL lock. */
export const SESSION_TOUCH_S = 60;

/** A browser session of the local service provider. */
export interface Session {
  /** SHA-256 (hex) of the cookie's token. */
  id: string;
  userId: string;
  /** The token POST/PUT/DELETE must carry in X-Ferry-Security-Token (given to pages in a meta element). */
  csrfToken: string;
  created: number;
  lastSeen: number;
}

export interface SessionStore {
  create(s: Session): void;
  get(id: string): Session | undefined;
  touch(id: string, now: number): void;
  delete(id: string): void;
  deleteOf(userId: string): void;
  deleteStale(idleBefore: number, createdBefore: number): number;
}

/** Only a hash of the session token is stored: a copy of the database opens no session. */
export function sessionId(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export function sessionAlive(s: Session, now: number): boolean {
  return s.lastSeen >= now - SESSION_IDLE_S && s.created >= now - SESSION_MAX_S;
}

/** A fresh cookie token (256 bits) and security token (192 bits), both from crypto. */
export function newSessionTokens(): { token: string; csrfToken: string } {
  return { token: crypto.randomBytes(32).toString('base64url'), csrfToken: crypto.randomBytes(24).toString('base64url') };
}
