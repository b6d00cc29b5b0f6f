import type { SpHeader } from '../config/defaults';
import { isEmail } from '../domain/transfer-input';
import type { Authenticator, AuthRequest, Principal } from './principal';

/**
 * Service provider "header": a reverse proxy in front of ferry (Shibboleth, mod_auth_openidc, …) authenticates
 * the user and passes the uid and e-mail(s) in headers. The headers are believed only from trusted proxies;
 * from anyone else they are ignored, so a client cannot claim an identity by sending them itself.
 */
export interface UserDirectory {
  /** Creates the user on first sight, records the e-mails, and tells whether the user is an admin. */
  seen(userId: string, emails: string[]): { isAdmin: boolean; emails: string[] };
}

export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

export class HeaderServiceProvider implements Authenticator {
  readonly name = 'sp';

  constructor(
    private readonly cfg: SpHeader,
    private readonly users: UserDirectory,
  ) {}

  authenticate(req: AuthRequest): Principal | null {
    if (!this.cfg.trusted_proxies.map(normaliseIp).includes(normaliseIp(req.remoteAddress))) return null;
    const uid = header(req, this.cfg.uid_header)?.trim();
    if (!uid || uid.length > 256) return null;
    const emails = (header(req, this.cfg.email_header) ?? '')
      .split(/[;,]/)
      .map((e) => e.trim())
      .filter(isEmail); // a malformed value never becomes a `from` address
    const seen = this.users.seen(uid, emails);
    return { type: 'user', user: { id: uid, emails: seen.emails }, via: 'sp', isAdmin: seen.isAdmin };
  }
}

function header(req: AuthRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}
