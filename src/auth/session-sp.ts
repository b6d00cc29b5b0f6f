import type { Authenticator, AuthRequest, Principal } from './principal';
import type { UserDirectory } from './header-sp';
import { SESSION_COOKIE, SESSION_TOUCH_S, SessionStore, sessionAlive, sessionId } from './sessions';
import type { Clock } from '../domain/ports';

/**
 * The session cookie an identity provider's sign-in set (POST /login, a provider's callback, …). An unknown, idle or
 * too old session is simply not detected (the request goes on as anonymous or to the signed modes), and a dead
 * one is deleted; so is one whose provider the config no longer has (switched off, it opens nothing).
 */
export class SessionServiceProvider implements Authenticator {
  readonly name = 'sp';
  constructor(
    private readonly sessions: SessionStore,
    private readonly users: UserDirectory,
    private readonly clock: Clock,
    private readonly providerOn: (id: string) => boolean,
  ) {}

  async authenticate(req: AuthRequest): Promise<Principal | null> {
    const token = req.cookies[SESSION_COOKIE];
    if (!token || token.length > 128) return null;
    const id = sessionId(token);
    const s = await this.sessions.get(id);
    if (!s) return null;
    const now = this.clock();
    if (!sessionAlive(s, now) || !this.providerOn(s.provider)) {
      await this.sessions.delete(id);
      return null;
    }
    if (s.lastSeen < now - SESSION_TOUCH_S) await this.sessions.touch(id, now);
    const seen = await this.users.seen(s.userId, []);
    return {
      type: 'user',
      user: { id: s.userId, emails: seen.emails },
      via: 'sp',
      isAdmin: seen.isAdmin || s.providerAdmin,
      csrfToken: s.csrfToken,
      provider: s.provider,
    };
  }
}
