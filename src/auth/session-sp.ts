import crypto from 'node:crypto';
import type { Authenticator, AuthRequest, Principal } from './principal';
import type { AccountsRepo } from '../db/accounts-repo';
import type { UserDirectory } from './header-sp';
import type { Clock } from '../domain/services';

export const SESSION_COOKIE = 'ferry_session';
/** A session ends after 8 hours without a request, and 7 days after login whatever happens. */
export const SESSION_IDLE_S = 8 * 3600;
export const SESSION_MAX_S = 7 * 86400;

/** Only a hash of the session token is stored: a copy of the database opens no session. */
export function sessionId(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/** Service provider "local": the session cookie set by POST /login. */
export class SessionServiceProvider implements Authenticator {
  readonly name = 'sp';
  constructor(
    private readonly accounts: AccountsRepo,
    private readonly users: UserDirectory,
    private readonly clock: Clock,
  ) {}

  authenticate(req: AuthRequest): Principal | null {
    const token = req.cookies[SESSION_COOKIE];
    if (!token || token.length > 128) return null;
    const id = sessionId(token);
    const s = this.accounts.session(id);
    const now = this.clock();
    if (!s) return null;
    if (s.last_seen < now - SESSION_IDLE_S || s.created < now - SESSION_MAX_S) {
      this.accounts.deleteSession(id);
      return null;
    }
    if (s.last_seen < now - 60) this.accounts.touchSession(id, now);
    const seen = this.users.seen(s.user_id, []);
    return { type: 'user', user: { id: s.user_id, emails: seen.emails }, via: 'sp', isAdmin: seen.isAdmin, csrfToken: s.csrf_token };
  }
}
