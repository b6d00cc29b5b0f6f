import type { SpHeader } from './providers/header/config';
import { isEmail } from '../domain/transfer-input';
import type { Authenticator, AuthRequest, Principal } from './principal';

import type { SignedInPerson } from '../domain/sign-in';

export type { UserDirectory } from '../domain/users';

/** The account a person the proxy vouched for enters (src/domain/sign-in.ts: 403 when it is another provider's). */
export type Admit = (person: SignedInPerson) => Promise<{ isAdmin: boolean; emails: string[] }>;

export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/**
 * The header kind's service provider: a reverse proxy in front of ferry (Shibboleth, mod_auth_openidc, …) authenticates
 * the user and passes the uid and e-mail(s) in headers. The headers are believed only from trusted proxies;
 * from anyone else they are ignored, so a client cannot claim an identity by sending them itself.
 */
export class HeaderServiceProvider implements Authenticator {
  readonly name = 'sp';

  constructor(
    private readonly cfg: SpHeader,
    private readonly admit: Admit,
  ) {}

  async authenticate(req: AuthRequest): Promise<Principal | null> {
    if (!this.cfg.trusted_proxies.map(normaliseIp).includes(normaliseIp(req.remoteAddress))) return null;
    const uid = header(req, this.cfg.uid_header)?.trim();
    if (!uid || uid.length > 256) return null;
    const emails = (header(req, this.cfg.email_header) ?? '')
      .split(/[;,]/)
      .map((e) => e.trim())
      .filter(isEmail); // a malformed value never becomes a `from` address
    const seen = await this.admit({ uid, emails, displayName: null, admin: false });
    return {
      type: 'user',
      user: { id: uid, emails: seen.emails },
      via: 'sp',
      isAdmin: seen.isAdmin,
      provider: this.cfg.id,
    };
  }
}

function header(req: AuthRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}
