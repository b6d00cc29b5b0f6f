export { SESSION_IDLE_S, SESSION_MAX_S, SESSION_TOUCH_S, sessionAlive, sessionId } from '../domain/sessions';
export type { Session, SessionRepository as SessionStore } from '../domain/ports';

/** The browser's cookie holding the session token (its SHA-256 is the stored session id). */
export const SESSION_COOKIE = 'ferry_session';
