import type { Authenticator, AuthRequest, Principal } from './principal';
import type { UserDirectory } from './header-sp';
import { SESSION_COOKIE, SESSION_TOUCH_S, SessionStore, sessionAlive, sessionId } from './sessions';
import type { Clock } from '../domain/ports';

/**
 * Service provider "local": the session cookie set by POST /login. An unknown, idle or too old session is
 * simply not detected (the request goes on as anonymous or to the signed modes), and a dead one is deleted.
 */
export class SessionServiceProvider implements Authenticator {
  readonly name = 'sp';
  constructor(
    private readonly sessions: SessionStore,
    private readonly users: UserDirectory,
    private readonly clock: Clock,
  ) {}

  async authenticate(req: AuthRequest): Promise<Principal | null> {
    const token = req.cookies[SESSION_COOKIE];
    if (!token || token.length > 128) return null;
    const id = sessionId(token);
    const s = await this.sessions.get(id);
    if (!s) return null;
    const now = this.clock();
    if (!sessionAlive(s, now)) {
      await this.sessions.delete(id);
      return null;
    }
    if (s.lastSeen < now - SESSION_TOUCH_S) await this.sessions.touch(id, now);
    const seen = await this.users.seen(s.userId, []);
    return { type: 'user', user: { id: s.userId, emails: seen.emails }, via: 'sp', isAdmin: seen.isAdmin, csrfToken: s.csrfToken };
  }
}
