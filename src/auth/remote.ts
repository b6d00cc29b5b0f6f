import { Errors } from '../domain/errors';
import type { Authenticator, AuthRequest, Principal } from './principal';
import { requestSignatureMatches, SignatureCheck } from './signature';
import type { UserDirectory } from './header-sp';
import type { Clock } from '../domain/services';

/** A remote application (ferry remote-app add): its shared secret, and the previous one during a grace period. */
export interface RemoteApp {
  name: string;
  secret: string;
  oldSecret: string | null;
  /** Until when (UNIX seconds) the old secret is still accepted. */
  oldSecretUntil: number | null;
  isAdmin: boolean;
  created: number;
}

export interface RemoteAppLookup {
  get(name: string): RemoteApp | undefined;
}

/** The users' own secrets for remote-user mode (spec: remote_config). */
export interface RemoteSecrets {
  remoteSecret(userId: string): string | null;
}

/** Signatures of state-changing signed requests seen inside their window. */
export interface UsedSignatures {
  /** Records the signature until `expires`; false when it was already recorded (a replay). */
  use(signature: string, expires: number, now: number): boolean;
}

export interface SignatureSettings {
  baseUrl: () => string;
  maxAge: number;
  maxFuture: number;
  /** Where the HMAC is computed (the server's hashing thread for big bodies); here when not given. */
  check?: SignatureCheck;
}

const UNSAFE = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/**
 * The signature verdict, then `after` with it: at once when the check runs here, once the hashing thread has
 * answered when a big body is checked there.
 */
function withVerdict<T>(s: SignatureSettings, signature: string, secrets: string[], req: AuthRequest, after: () => T): T | Promise<T> {
  const refuse = () => Errors.authRemoteSignatureCheckFailed();
  if (!s.check) {
    if (!requestSignatureMatches(signature, secrets, req, s.baseUrl())) throw refuse();
    return after();
  }
  return s.check(signature, secrets, req, s.baseUrl()).then((ok) => {
    if (!ok) throw refuse();
    return after();
  });
}

/** Timestamp window: older than signature_max_age_s or further ahead than signature_max_future_s is refused. */
function checkWindow(req: AuthRequest, s: SignatureSettings, now: number): number {
  const raw = req.query.get('timestamp') ?? '';
  const ts = /^\d{1,12}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(ts) || ts < now - s.maxAge || ts > now + s.maxFuture) throw Errors.authRemoteTooLate();
  return ts;
}

/**
 * An exact replay of a state-changing request inside its window is refused; a client's retry signs anew with a
 * new timestamp. The signature is kept until the window of its timestamp has passed. Checked only once the
 * signature is known to be right, so nobody can spend another client's signature in advance.
 */
function checkReplay(req: AuthRequest, s: SignatureSettings, ts: number, now: number, used: UsedSignatures, signature: string): void {
  if (UNSAFE.has(req.method) && !used.use(signature.toLowerCase(), Math.max(ts, now) + s.maxAge + 1, now)) {
    throw Errors.authRemoteSignatureCheckFailed('replay');
  }
}

/** Remote application: a trusted application signs with its secret; with remote_user it acts as that user. */
export class RemoteApplicationAuthenticator implements Authenticator {
  readonly name = 'remote_application';
  constructor(
    private readonly apps: RemoteAppLookup,
    private readonly used: UsedSignatures,
    private readonly users: UserDirectory,
    private readonly settings: SignatureSettings,
    private readonly clock: Clock,
  ) {}

  authenticate(req: AuthRequest): Principal | null | Promise<Principal | null> {
    const name = req.query.get('remote_application');
    if (name === null) return null;
    const signature = req.query.get('signature') ?? '';
    const app = name.length <= 64 ? this.apps.get(name) : undefined;
    if (!app) throw Errors.authRemoteUnknownApplication();
    const now = this.clock();
    const ts = checkWindow(req, this.settings, now);
    const secrets = [app.secret, ...(app.oldSecret && (app.oldSecretUntil ?? 0) > now ? [app.oldSecret] : [])];
    return withVerdict(this.settings, signature, secrets, req, (): Principal => {
      checkReplay(req, this.settings, ts, now, this.used, signature);
      const remoteUser = req.query.get('remote_user');
      if (remoteUser === null) return { type: 'application', application: name, isAdmin: app.isAdmin };
      if (!remoteUser.trim() || remoteUser.length > 256) throw Errors.authRemoteUserRejected();
      // Acting as a user means acting with that user's rights only: the application's admin flag does not carry over.
      const seen = this.users.seen(remoteUser, []);
      return { type: 'user', user: { id: remoteUser, emails: seen.emails }, via: 'remote_application', application: name, isAdmin: seen.isAdmin };
    });
  }
}

/** Remote user: a user lets a script act for them, signing with the user's own secret (GET /user remote_config). */
export class RemoteUserAuthenticator implements Authenticator {
  readonly name = 'remote_user';
  constructor(
    private readonly secrets: RemoteSecrets,
    private readonly used: UsedSignatures,
    private readonly users: UserDirectory,
    private readonly settings: SignatureSettings,
    private readonly clock: Clock,
  ) {}

  authenticate(req: AuthRequest): Principal | null | Promise<Principal | null> {
    const userId = req.query.get('remote_user');
    const signature = req.query.get('signature');
    // With remote_application the request belongs to the remote-application mode, enabled or not.
    if (userId === null || signature === null || req.query.has('remote_application')) return null;
    // As in FileSender: an unknown user or one without a secret is rejected, a wrong signature fails its check.
    const now = this.clock();
    const ts = checkWindow(req, this.settings, now);
    const secret = userId.length <= 256 ? this.secrets.remoteSecret(userId) : null;
    if (!secret) throw Errors.authRemoteUserRejected();
    return withVerdict(this.settings, signature, [secret], req, (): Principal => {
      checkReplay(req, this.settings, ts, now, this.used, signature);
      const seen = this.users.seen(userId, []);
      return { type: 'user', user: { id: userId, emails: seen.emails }, via: 'remote_user', isAdmin: seen.isAdmin };
    });
  }
}
