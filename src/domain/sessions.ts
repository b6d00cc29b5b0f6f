import crypto from 'node:crypto';
import type { Session } from './ports';

/** A session ends after 8 hours without a request, and 7 days after login whatever happens. */
export const SESSION_IDLE_S = 8 * 3600;
export const SESSION_MAX_S = 7 * 86400;
/** last_seen is written at most once a minute: a write per request would serialise requests behind the write lock. */
export const SESSION_TOUCH_S = 60;

/** Only a hash of the session token is stored: a copy of the database opens no session. */
export function sessionId(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export function sessionAlive(s: Session, now: number): boolean {
  return s.lastSeen >= now - SESSION_IDLE_S && s.created >= now - SESSION_MAX_S;
}
