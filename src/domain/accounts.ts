import crypto from 'node:crypto';
import { ServiceError } from './errors';
import type { Clock } from './services';
import type { AccountsRepo, RemoteAppRow } from '../db/accounts-repo';
import type { UsersRepo } from '../db/users-repo';
import { hashPassword, randomPassword, randomSecret, verifyPassword } from '../auth/passwords';
import { sessionId } from '../auth/session-sp';
import { Throttle } from '../auth/throttle';
import { isEmail } from './transfer-input';

export interface LoginResult {
  token: string;
  csrfToken: string;
  userId: string;
}

const USER_ID = /^[A-Za-z0-9._@+-]{1,128}$/;
/** 5 failures per account and 20 per address in 15 minutes, then 429 until the window moves on. */
const perAccount = () => new Throttle(5, 900);
const perIp = () => new Throttle(20, 900);

/**
 * Local accounts and sessions (service provider "local"), administrators, remote applications and the
 * users' remote secrets. Used by the HTTP layer (login) and by the CLI (while serve runs: same SQLite file).
 */
export class AccountsService {
  private readonly accountThrottle = perAccount();
  private readonly ipThrottle = perIp();

  constructor(
    private readonly accounts: AccountsRepo,
    private readonly users: UsersRepo,
    private readonly clock: Clock,
  ) {}

  async login(userId: unknown, password: unknown, ip: string): Promise<LoginResult> {
    if (typeof userId !== 'string' || typeof password !== 'string' || !userId || password.length > 1024) {
      throw new ServiceError('rest_missing_parameter', 400, ['user_id', 'password']);
    }
    const now = this.clock();
    const wait = Math.max(this.accountThrottle.retryAfter(userId, now), this.ipThrottle.retryAfter(ip, now));
    if (wait > 0) throw new ServiceError('rate_limit_exceeded', 429, [`retry_after=${wait}`]);
    const hash = this.accounts.passwordHash(userId);
    // Hash even for unknown users so the answer takes as long either way.
    const ok = await verifyPassword(password, hash ?? 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    if (!hash || !ok) {
      this.accountThrottle.fail(userId, now);
      this.ipThrottle.fail(ip, now);
      throw new ServiceError('rest_authentication_required', 401, ['login']);
    }
    this.accountThrottle.reset(userId);
    const token = crypto.randomBytes(32).toString('base64url');
    const csrfToken = crypto.randomBytes(24).toString('base64url');
    this.accounts.createSession(sessionId(token), userId, csrfToken, now);
    return { token, csrfToken, userId };
  }

  logout(token: string | undefined): void {
    if (token) this.accounts.deleteSession(sessionId(token));
  }

  async addUser(userId: string, emails: string[], password: string | null): Promise<void> {
    if (!USER_ID.test(userId)) throw new ServiceError('rest_bad_parameter', 400, ['user_id']);
    if (emails.length === 0 || !emails.every(isEmail)) throw new ServiceError('bad_email', 400, ['email']);
    const now = this.clock();
    this.users.upsertSeen(userId, emails, now);
    this.users.setEmails(userId, emails);
    if (password !== null) await this.setPassword(userId, password);
  }

  async setPassword(userId: string, password: string): Promise<void> {
    if (!this.users.find(userId)) throw new ServiceError('user_not_found', 404);
    if (password.length < 8) throw new ServiceError('rest_bad_parameter', 400, ['password: at least 8 characters']);
    this.accounts.setPassword(userId, await hashPassword(password), this.clock());
    this.accounts.deleteSessionsOf(userId);
  }

  listUsers(): { id: string; emails: string[]; local: boolean; admin: boolean }[] {
    const local = new Set(this.accounts.listAccounts().map((a) => a.user_id));
    return this.users.listIds().map((id) => ({ id, emails: this.users.emails(id), local: local.has(id), admin: this.users.isDbAdmin(id) }));
  }

  removeUser(userId: string): void {
    if (!this.accounts.deleteUser(userId)) throw new ServiceError('user_not_found', 404);
  }

  /** First start with the local SP and no account: `admin` with a random password, returned once to print. */
  async ensureInitialAdmin(): Promise<string | null> {
    if (this.accounts.countAccounts() > 0) return null;
    const password = randomPassword();
    await this.addUser('admin', ['admin@localhost.localdomain'], password);
    this.users.addAdmin('admin', this.clock());
    return password;
  }

  addRemoteApp(name: string, isAdmin: boolean): string {
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new ServiceError('rest_bad_parameter', 400, ['name']);
    const secret = randomSecret();
    if (!this.accounts.addRemoteApp(name, secret, isAdmin, this.clock())) throw new ServiceError('rest_bad_parameter', 400, ['name: exists']);
    return secret;
  }

  /** A new secret; the old one keeps working for graceS seconds (0: stops at once). */
  rotateRemoteApp(name: string, graceS: number): string {
    const secret = randomSecret();
    if (!this.accounts.rotateRemoteApp(name, secret, graceS > 0 ? this.clock() + graceS : null)) throw new ServiceError('rest_bad_parameter', 400, ['name: unknown']);
    return secret;
  }

  listRemoteApps(): Pick<RemoteAppRow, 'name' | 'is_admin' | 'created'>[] {
    return this.accounts.listRemoteApps().map(({ name, is_admin, created }) => ({ name, is_admin, created }));
  }

  removeRemoteApp(name: string): void {
    if (!this.accounts.removeRemoteApp(name)) throw new ServiceError('rest_bad_parameter', 400, ['name: unknown']);
  }

  /** The user's remote-user secret, created on first need. */
  remoteSecret(userId: string, rotate = false): string {
    let secret = this.accounts.remoteSecret(userId);
    if (!secret || rotate) {
      secret = randomSecret();
      this.accounts.setRemoteSecret(userId, secret);
    }
    return secret;
  }
}
