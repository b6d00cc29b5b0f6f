import { Errors } from '../domain/errors';
import type { Authenticator, AuthRequest, Principal } from './principal';
import { matchingShape, SignatureCheck } from './signature';
import { learnShape, streamingSignature } from './body-signature';
import type { UserDirectory } from './header-sp';
import type { RemoteApp } from '../domain/ports';
import type { Clock } from '../domain/ports';

export type { RemoteApp } from '../domain/ports';

export interface RemoteAppLookup {
  get(name: string): Promise<RemoteApp | undefined>;
}

/** The users' own secrets for remote-user mode (spec: remote_config). */
export interface RemoteSecrets {
  remoteSecret(userId: string): Promise<string | null>;
}

/** Signatures of state-changing signed requests seen inside their window (SignatureRepository). */
export interface UsedSignatures {
  /** Records the signature until `expires`; false when it was already recorded (a replay). */
  use(signature: string, expires: number, now: number): Promise<boolean>;
  /** Forgets a recorded signature: its request was refused, so it changed nothing and may be sent again. */
  release(signature: string): Promise<void>;
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
 * The signature verdict: computed here, or on the hashing thread for a big body.
 */
async function checkSignature(
  s: SignatureSettings,
  signature: string,
  secrets: string[],
  req: AuthRequest,
  credential: string,
): Promise<void> {
  if (s.check && req.body.length >= SMALL_BODY) {
    if (!(await s.check(signature, secrets, req, s.baseUrl()))) throw Errors.authRemoteSignatureCheckFailed();
    return;
  }
  const shape = matchingShape(signature, secrets, req, s.baseUrl());
  if (shape === null) throw Errors.authRemoteSignatureCheckFailed();
  learnShape(credential, req, shape);
}

/** Bodies below this are checked here, where the way the signature matched is learnt (body-signature.ts). */
const SMALL_BODY = 256 * 1024;

/**
 * A signed request whose body streams after authentication: the principal is returned now, with the HMAC to
 * feed (Principal.signedBody); the replay check runs once the body matched. Everything else about the
 * signature (window, credential) was checked before a byte of the body was read.
 */
function pending<P extends Principal & { signedBody?: unknown; releaseSignature?: unknown }>(
  principal: P,
  s: SignatureSettings,
  signature: string,
  secrets: string[],
  req: AuthRequest,
  credential: string,
  replay: () => Promise<(() => Promise<void>) | undefined>,
): P {
  principal.signedBody = streamingSignature(signature, secrets, req, s.baseUrl(), credential, async () => {
    const release = await replay();
    if (release) principal.releaseSignature = release;
  });
  return principal;
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
 *
 * Returns how to give the signature back, for the HTTP layer to call when the request is then refused (4xx):
 * a refused change did not happen, so the identical request may be sent again once the state allows it (a
 * completion refused because a chunk was missing, sent again in the same second once the chunk is in). While
 * the first is in progress, an identical one is still a replay; an accepted change is never accepted twice.
 */
async function checkReplay(
  req: AuthRequest,
  s: SignatureSettings,
  ts: number,
  now: number,
  used: UsedSignatures,
  signature: string,
): Promise<(() => Promise<void>) | undefined> {
  if (!UNSAFE.has(req.method)) return undefined;
  const key = signature.toLowerCase();
  if (!(await used.use(key, Math.max(ts, now) + s.maxAge + 1, now)))
    throw Errors.authRemoteSignatureCheckFailed('replay');
  return () => used.release(key);
}

/** The principal's releaseSignature field, present only when there is one to give back. */
const given = (releaseSignature: (() => Promise<void>) | undefined) => (releaseSignature ? { releaseSignature } : {});

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

  async authenticate(req: AuthRequest): Promise<Principal | null> {
    const name = req.query.get('remote_application');
    if (name === null) return null;
    const signature = req.query.get('signature') ?? '';
    const app = name.length <= 64 ? await this.apps.get(name) : undefined;
    if (!app) throw Errors.authRemoteUnknownApplication();
    const now = this.clock();
    const ts = checkWindow(req, this.settings, now);
    const secrets = [app.secret, ...(app.oldSecret && (app.oldSecretUntil ?? 0) > now ? [app.oldSecret] : [])];
    const credential = `app:${name}`;
    const remoteUser = req.query.get('remote_user');
    if (req.bodyFollows) {
      if (remoteUser !== null && (!remoteUser.trim() || remoteUser.length > 256)) throw Errors.authRemoteUserRejected();
      const replay = () => checkReplay(req, this.settings, ts, now, this.used, signature);
      if (remoteUser === null)
        return pending(
          { type: 'application', application: name, isAdmin: app.isAdmin } as Principal & { type: 'application' },
          this.settings,
          signature,
          secrets,
          req,
          credential,
          replay,
        );
      const seen = await this.users.seen(remoteUser, []);
      const p = {
        type: 'user',
        user: { id: remoteUser, emails: seen.emails },
        via: 'remote_application',
        application: name,
        isAdmin: seen.isAdmin,
      } as Principal & { type: 'user' };
      return pending(p, this.settings, signature, secrets, req, credential, replay);
    }
    await checkSignature(this.settings, signature, secrets, req, credential);
    if (remoteUser !== null && (!remoteUser.trim() || remoteUser.length > 256)) throw Errors.authRemoteUserRejected();
    const release = given(await checkReplay(req, this.settings, ts, now, this.used, signature));
    if (remoteUser === null) return { type: 'application', application: name, isAdmin: app.isAdmin, ...release };
    // Acting as a user means acting with that user's rights, but never more than the application's own: the
    // application's admin flag does not carry over to a user, and a user's admin rights need an admin
    // application (docs/hardening.md, "Remote applications and admin rights").
    const seen = await this.users.seen(remoteUser, []);
    return {
      type: 'user',
      user: { id: remoteUser, emails: seen.emails },
      via: 'remote_application',
      application: name,
      isAdmin: seen.isAdmin && app.isAdmin,
      ...release,
    };
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

  async authenticate(req: AuthRequest): Promise<Principal | null> {
    const userId = req.query.get('remote_user');
    const signature = req.query.get('signature');
    // With remote_application the request belongs to the remote-application mode, enabled or not.
    if (userId === null || signature === null || req.query.has('remote_application')) return null;
    // As in FileSender: an unknown user or one without a secret is rejected, a wrong signature fails its check.
    const now = this.clock();
    const ts = checkWindow(req, this.settings, now);
    const secret = userId.length <= 256 ? await this.secrets.remoteSecret(userId) : null;
    if (!secret) throw Errors.authRemoteUserRejected();
    const credential = `user:${userId}`;
    if (req.bodyFollows) {
      const seen = await this.users.seen(userId, []);
      const p = {
        type: 'user',
        user: { id: userId, emails: seen.emails },
        via: 'remote_user',
        isAdmin: seen.isAdmin,
      } as Principal & { type: 'user' };
      return pending(p, this.settings, signature, [secret], req, credential, () =>
        checkReplay(req, this.settings, ts, now, this.used, signature),
      );
    }
    await checkSignature(this.settings, signature, [secret], req, credential);
    const release = given(await checkReplay(req, this.settings, ts, now, this.used, signature));
    const seen = await this.users.seen(userId, []);
    return {
      type: 'user',
      user: { id: userId, emails: seen.emails },
      via: 'remote_user',
      isAdmin: seen.isAdmin,
      ...release,
    };
  }
}
