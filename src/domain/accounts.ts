import { Errors } from './errors';
import type { Clock } from './services';
import type { UsersService, UserStore } from './users';
import { hashPassword, randomPassword, randomSecret, verifyPassword } from '../auth/passwords';
import { newSessionTokens, SESSION_IDLE_S, SESSION_MAX_S, sessionId, SessionStore } from '../auth/sessions';
import type { RemoteApp } from '../auth/remote';
import { Throttle } from '../auth/throttle';
import { isEmail } from './transfer-input';

export interface LocalAccountStore {
  passwordHash(userId: string): string | undefined;
  setPassword(userId: string, hash: string, now: number): void;
  createFirst(userId: string, hash: string, now: number): boolean;
  userIds(): string[];
  count(): number;
  delete(userId: string): boolean;
}

export interface RemoteAppStore {
  get(name: string): RemoteApp | undefined;
  add(name: string, secret: string, isAdmin: boolean, now: number): boolean;
  rotate(name: string, secret: string, oldUntil: number | null): boolean;
  list(): RemoteApp[];
  remove(name: string): boolean;
}

export interface LoginResult {
  token: string;
  csrfToken: string;
  userId: string;
}

const USER_ID = /^[A-Za-z0-9._@+-]{1,128}$/;
const APP_NAME = /^[A-Za-z0-9._-]{1,64}$/;
export const MIN_PASSWORD_LENGTH = 8;
/**
 * Login throttle: 5 failures per account and 20 per client address within 15 minutes, then 429 until the
 * oldest failure leaves the window. Kept in memory (see src/auth/throttle.ts for why that is enough).
 */
export const LOGIN_THROTTLE = { perAccount: 5, perIp: 20, windowS: 900 };
/** A well-formed hash of nothing, verified for unknown users so a refusal takes as long either way. */
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/**
 * Credentials: local accounts and their sessions (service provider "local") and remote applications. Used by
 * the HTTP layer (login) and by the CLI, which works on the same SQLite file while serve runs.
 */
export class AccountsService {
  private readonly accountThrottle = new Throttle(LOGIN_THROTTLE.perAccount, LOGIN_THROTTLE.windowS);
  private readonly ipThrottle = new Throttle(LOGIN_THROTTLE.perIp, LOGIN_THROTTLE.windowS);

  constructor(
    private readonly local: LocalAccountStore,
    private readonly sessions: SessionStore,
    private readonly apps: RemoteAppStore,
    private readonly userStore: Pick<UserStore, 'upsertSeen' | 'setEmails' | 'record' | 'emails' | 'listIds' | 'setRemoteSecret'>,
    private readonly users: UsersService,
    private readonly clock: Clock,
  ) {}

  async login(userId: unknown, password: unknown, ip: string): Promise<LoginResult> {
    const missing = [typeof userId === 'string' && userId ? null : 'user_id', typeof password === 'string' && password ? null : 'password'];
    if (missing.some((m) => m)) throw Errors.restMissingParameter(...missing.filter((m): m is string => m !== null));
    const id = userId as string;
    const pw = password as string;
    if (id.length > 256 || pw.length > 1024) throw Errors.restBadParameter(id.length > 256 ? 'user_id' : 'password');
    const now = this.clock();
    const wait = Math.max(this.accountThrottle.retryAfter(id, now), this.ipThrottle.retryAfter(ip, now));
    if (wait > 0) throw Errors.rateLimitExceeded(`retry_after=${wait}`);
    // Each attempt counts as a failure before the (slow) password check and is taken back if it succeeds:
    // otherwise many attempts sent at once would all pass the check above and guess far beyond the limit.
    this.accountThrottle.fail(id, now);
    this.ipThrottle.fail(ip, now);
    const hash = this.local.passwordHash(id);
    const ok = await verifyPassword(pw, hash ?? DUMMY_HASH);
    if (!hash || !ok) throw Errors.restAuthenticationRequired('login');
    this.accountThrottle.reset(id);
    this.ipThrottle.undo(ip, now);
    // Logins are rare: a good moment to forget sessions that have ended.
    this.sessions.deleteStale(now - SESSION_IDLE_S, now - SESSION_MAX_S);
    const { token, csrfToken } = newSessionTokens();
    this.sessions.create({ id: sessionId(token), userId: id, csrfToken, created: now, lastSeen: now });
    return { token, csrfToken, userId: id };
  }

  logout(token: string | undefined): void {
    if (token && token.length <= 128) this.sessions.delete(sessionId(token));
  }

  /** Creates or updates a local account: its e-mail addresses and, when given, its password. */
  async addUser(userId: string, emails: string[], password: string | null): Promise<void> {
    if (!USER_ID.test(userId)) throw Errors.restBadParameter('user_id');
    if (emails.length === 0 || !emails.every(isEmail)) throw Errors.badEmail('email');
    if (password !== null) checkPassword(password);
    this.userStore.upsertSeen(userId, emails, this.clock());
    this.userStore.setEmails(userId, emails);
    if (password !== null) await this.setPassword(userId, password);
  }

  /** A new password closes every session of the account. */
  async setPassword(userId: string, password: string): Promise<void> {
    if (!this.userStore.record(userId)) throw Errors.userNotFound();
    checkPassword(password);
    this.local.setPassword(userId, await hashPassword(password), this.clock());
    this.sessions.deleteOf(userId);
  }

  listUsers(): { id: string; emails: string[]; local: boolean; admin: boolean }[] {
    const local = new Set(this.local.userIds());
    return this.userStore.listIds().map((id) => ({ id, emails: this.userStore.emails(id), local: local.has(id), admin: this.users.isAdmin(id) }));
  }

  /**
   * Ends a local account: no more login, its sessions and remote-user secret gone. The user's Transfers and
   * Guests stay until they expire, so recipients keep what was sent to them.
   */
  removeUser(userId: string): void {
    if (!this.local.delete(userId)) throw Errors.userNotFound();
    this.sessions.deleteOf(userId);
    this.userStore.setRemoteSecret(userId, null);
  }

  /** First start with the local SP and no account: `admin` with a random password, returned once to print. */
  async ensureInitialAdmin(): Promise<string | null> {
    if (this.local.count() > 0) return null;
    const password = randomPassword();
    const hash = await hashPassword(password);
    // Several processes may start at once on a new data dir: only the one whose insert lands prints a password.
    await this.addUser('admin', ['admin@localhost.localdomain'], null);
    if (!this.local.createFirst('admin', hash, this.clock())) return null;
    this.users.addAdmin('admin');
    return password;
  }

  addRemoteApp(name: string, isAdmin: boolean): string {
    if (!APP_NAME.test(name)) throw Errors.restBadParameter('name');
    const secret = randomSecret();
    if (!this.apps.add(name, secret, isAdmin, this.clock())) throw Errors.restBadParameter(`${name} exists`);
    return secret;
  }

  /** A new secret; the old one keeps working for graceS seconds (0: it stops at once). */
  rotateRemoteApp(name: string, graceS: number): { secret: string; isAdmin: boolean } {
    if (!Number.isSafeInteger(graceS) || graceS < 0) throw Errors.restBadParameter('grace');
    const app = this.apps.get(name);
    if (!app) throw Errors.restBadParameter(`${name} unknown`);
    const secret = randomSecret();
    this.apps.rotate(name, secret, graceS > 0 ? this.clock() + graceS : null);
    return { secret, isAdmin: app.isAdmin };
  }

  remoteAppExists(name: string): boolean {
    return name.length <= 64 && this.apps.get(name) !== undefined;
  }

  /** Names and flags only: secrets are shown once, when created or rotated. */
  listRemoteApps(): { name: string; admin: boolean; created: number; graceUntil: number | null }[] {
    const now = this.clock();
    return this.apps.list().map((a) => ({
      name: a.name,
      admin: a.isAdmin,
      created: a.created,
      graceUntil: a.oldSecret && (a.oldSecretUntil ?? 0) > now ? a.oldSecretUntil : null,
    }));
  }

  removeRemoteApp(name: string): void {
    if (!this.apps.remove(name)) throw Errors.restBadParameter(`${name} unknown`);
  }
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw Errors.restBadParameter(`password: at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > 1024) throw Errors.restBadParameter('password: at most 1024 characters');
}
