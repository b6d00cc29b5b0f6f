import { ServiceError } from '../domain/errors';
import type { Authenticator, AuthRequest, Principal } from './principal';
import { signatureMatches, stringsToSign } from './signature';
import type { UserDirectory } from './header-sp';
import type { AccountsRepo } from '../db/accounts-repo';
import type { Clock } from '../domain/services';

export interface SignatureSettings {
  baseUrl: () => string;
  maxAge: number;
  maxFuture: number;
}

const UNSAFE = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** Timestamp window and replay check shared by both signed modes. */
function checkFreshness(req: AuthRequest, s: SignatureSettings, clock: Clock, accounts: AccountsRepo, signature: string): void {
  const ts = Number(req.query.get('timestamp'));
  const now = clock();
  if (!Number.isSafeInteger(ts) || ts < now - s.maxAge || ts > now + s.maxFuture) throw new ServiceError('auth_remote_too_late', 401);
  // An exact replay of a state-changing request inside its window is refused (a client retry signs anew).
  if (UNSAFE.has(req.method) && !accounts.useSignature(signature.toLowerCase(), Math.max(ts, now) + s.maxAge + 1, now)) {
    throw new ServiceError('auth_remote_signature_check_failed', 401, ['replay']);
  }
}

/** Remote application: a trusted application signs with its secret; with remote_user it acts as that user. */
export class RemoteApplicationAuthenticator implements Authenticator {
  readonly name = 'remote_application';
  constructor(
    private readonly accounts: AccountsRepo,
    private readonly users: UserDirectory,
    private readonly settings: SignatureSettings,
    private readonly clock: Clock,
  ) {}

  authenticate(req: AuthRequest): Principal | null {
    const name = req.query.get('remote_application');
    if (name === null) return null;
    const signature = req.query.get('signature') ?? '';
    const app = this.accounts.remoteApp(name);
    if (!app) throw new ServiceError('auth_remote_unknown_application', 401);
    const now = this.clock();
    const secrets = [app.secret, ...(app.old_secret && (app.old_secret_until ?? 0) > now ? [app.old_secret] : [])];
    if (!signatureMatches(signature, secrets, stringsToSign(req, this.settings.baseUrl()))) throw new ServiceError('auth_remote_signature_check_failed', 401);
    checkFreshness(req, this.settings, this.clock, this.accounts, signature);
    const remoteUser = req.query.get('remote_user');
    if (remoteUser === null) return { type: 'application', application: name, isAdmin: app.is_admin === 1 };
    if (!remoteUser || remoteUser.length > 256) throw new ServiceError('auth_remote_user_rejected', 401);
    const seen = this.users.seen(remoteUser, []);
    return { type: 'user', user: { id: remoteUser, emails: seen.emails }, via: 'remote_application', application: name, isAdmin: seen.isAdmin };
  }
}

/** Remote user: a user lets a script act for them, signing with the user's own secret (GET /user remote_config). */
export class RemoteUserAuthenticator implements Authenticator {
  readonly name = 'remote_user';
  constructor(
    private readonly accounts: AccountsRepo,
    private readonly users: UserDirectory,
    private readonly settings: SignatureSettings,
    private readonly clock: Clock,
  ) {}

  authenticate(req: AuthRequest): Principal | null {
    const userId = req.query.get('remote_user');
    const signature = req.query.get('signature');
    if (userId === null || signature === null) return null;
    const secret = this.accounts.remoteSecret(userId);
    if (!secret || !signatureMatches(signature, [secret], stringsToSign(req, this.settings.baseUrl()))) {
      throw new ServiceError('auth_remote_user_rejected', 401);
    }
    checkFreshness(req, this.settings, this.clock, this.accounts, signature);
    const seen = this.users.seen(userId, []);
    return { type: 'user', user: { id: userId, emails: seen.emails }, via: 'remote_user', isAdmin: seen.isAdmin };
  }
}
