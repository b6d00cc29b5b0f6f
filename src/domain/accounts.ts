import { Errors, ServiceError } from './errors';
import type { Clock, IdGenerator, PasswordHasher, Repositories, Session, UnitOfWork } from './ports';
import type { UsersService } from './users';
import { LoginThrottle } from './login-throttle';
import { SESSION_IDLE_S, SESSION_MAX_S, sessionId } from './sessions';
import { isEmail } from './transfer-input';
import type { Page } from './paging';
import { MIN_PASSWORD_LENGTH } from './password-rules';
import { LOCAL_OWNER } from './account-owners';

export { MIN_PASSWORD_LENGTH } from './password-rules';

export { LOGIN_THROTTLE } from './login-throttle';

export interface LoginResult {
  token: string;
  csrfToken: string;
  userId: string;
}

const USER_ID = /^[A-Za-z0-9._@+-]{1,128}$/;
const APP_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** A well-formed hash of nothing, verified for unknown users so a refusal takes as long either way. */
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export interface AccountDeps {
  repos: Repositories;
  uow: UnitOfWork;
  users: UsersService;
  clock: Clock;
  ids: IdGenerator;
  passwords: PasswordHasher;
}

/**
 * Credentials: local accounts and their sessions (service provider "local") and remote applications. Used by
 * the HTTP layer (login) and by the CLI, which works on the same database while serve runs.
 */
/**
 * The address the first account gets when `serve` creates it: a placeholder, not anyone's mailbox. Its
 * owner is asked for a real one at sign-in (the pages), since every mail they send is from it.
 */
export const PLACEHOLDER_EMAIL = 'admin@localhost.localdomain';

export class AccountsService {
  private readonly throttle: LoginThrottle;

  constructor(private readonly d: AccountDeps) {
    this.throttle = new LoginThrottle(d.uow);
  }

  /**
   * The edge has checked that both are given and of sane length. A local account's sign-in and its session.
   * `deviceToken`: the browser's device cookie, when it sent one (the login throttle, see ./login-throttle.ts).
   */
  async login(
    userId: string,
    password: string,
    ip: string,
    provider = LOCAL_OWNER,
    deviceToken?: string,
  ): Promise<LoginResult & { deviceToken: string }> {
    const device = await this.verifyPassword(userId, password, ip, deviceToken);
    return {
      ...(await this.openSession({ userId, provider, providerAdmin: false, providerRef: null, providerData: null })),
      deviceToken: device,
    };
  }

  /**
   * A local account's password, checked under the login throttle (401 when wrong, 429 when throttled). A browser
   * that signed in to the account before (`deviceToken`) is held by its own failures, not the account's. Returns
   * the device token the browser keeps (the one it sent, or a new one).
   */
  async verifyPassword(userId: string, password: string, ip: string, deviceToken?: string): Promise<string> {
    const now = this.d.clock();
    const given = deviceToken && /^[0-9a-f]{64}$/.test(deviceToken) ? deviceToken : null;
    const known = given !== null && (await this.d.repos.loginDevices.known(sessionId(given), userId));
    const attempt = await this.throttle.attempt(userId, ip, now, known ? sessionId(given!) : null);
    const hash = await this.d.repos.localAccounts.passwordHash(userId);
    const ok = await this.d.passwords.verify(password, hash ?? DUMMY_HASH);
    if (!hash || !ok) throw Errors.restAuthenticationRequired('login');
    await attempt.succeeded();
    const device = given ?? this.d.ids.secret();
    await this.d.repos.loginDevices.remember(sessionId(device), userId, now);
    return device;
  }

  /**
   * Runs `check` (a directory's password check) under the login throttle, counted against `account`: it
   * throws to refuse (counted as a failure), or resolves (the failures are forgotten). A ServiceError other
   * than 401 (the directory is down: 503) is not a wrong password and is not counted.
   */
  async throttled<T>(account: string, ip: string, check: () => Promise<T>): Promise<T> {
    const attempt = await this.throttle.attempt(account, ip, this.d.clock());
    let result: T;
    try {
      result = await check();
    } catch (e) {
      if (e instanceof ServiceError && e.status === 503) await attempt.undecided();
      throw e;
    }
    await attempt.succeeded();
    return result;
  }

  /** A new browser session for a person an identity provider signed in. */
  async openSession(s: {
    userId: string;
    provider: string;
    providerAdmin: boolean;
    providerRef: string | null;
    providerData: string | null;
  }): Promise<LoginResult> {
    const now = this.d.clock();
    // Logins are rare: a good moment to forget sessions that have ended.
    await this.d.repos.sessions.deleteStale(now - SESSION_IDLE_S, now - SESSION_MAX_S);
    const { token, csrfToken } = this.d.ids.sessionTokens();
    await this.d.repos.sessions.create({ id: sessionId(token), csrfToken, created: now, lastSeen: now, ...s });
    return { token, csrfToken, userId: s.userId };
  }

  /** The session of a browser's token (to end it, and its provider's session), when it exists. */
  session(token: string | undefined): Promise<Session | undefined> {
    return token && token.length <= 128 ? this.d.repos.sessions.get(sessionId(token)) : Promise.resolve(undefined);
  }

  /** Ends the sessions an identity provider names in a logout it starts. */
  endProviderSessions(provider: string, refs: string[]): Promise<number> {
    return this.d.repos.sessions.deleteByRef(provider, refs);
  }

  async logout(token: string | undefined): Promise<void> {
    if (token && token.length <= 128) await this.d.repos.sessions.delete(sessionId(token));
  }

  /** Creates or updates a local account: its e-mail addresses and, when given, its password. */
  async addUser(userId: string, emails: string[], password: string | null): Promise<void> {
    if (!USER_ID.test(userId)) throw Errors.restBadParameter('user_id');
    if (emails.length === 0 || !emails.every(isEmail)) throw Errors.badEmail('email');
    if (password !== null) {
      checkPassword(password);
      await this.mayHavePassword(userId);
    }
    await this.d.repos.users.upsertSeen(userId, emails, this.d.clock());
    await this.d.repos.users.setEmails(userId, emails);
    if (password !== null) await this.setPassword(userId, password);
  }

  /**
   * The e-mail addresses of a local account (the first is the sender's address and Reply-To of its mail), set
   * by its owner or an admin. Other accounts' addresses come from their identity provider at each sign-in,
   * which would undo a change: refused.
   */
  async setEmails(userId: string, emails: string[]): Promise<void> {
    if (emails.length === 0 || !emails.every(isEmail)) throw Errors.badEmail('email');
    if (!(await this.d.repos.users.record(userId))) throw Errors.userNotFound();
    if (!(await this.isLocal(userId))) throw Errors.restAccessForbidden();
    await this.d.repos.users.setEmails(userId, emails);
  }

  /**
   * A new password closes every session of the account. Only a local account, or one no provider is recorded
   * for, gets one: a password on another provider's account would make it local, shut out its owner and open it
   * to whoever knows the password (src/domain/sign-in.ts).
   */
  async setPassword(userId: string, password: string): Promise<void> {
    if (!(await this.mayHavePassword(userId))) throw Errors.userNotFound();
    checkPassword(password);
    const hash = await this.d.passwords.hash(password);
    await this.dropRemoteSecret(userId);
    await this.d.repos.users.adopt(userId, LOCAL_OWNER);
    await this.d.repos.localAccounts.setPassword(userId, hash, this.d.clock());
    await this.d.repos.sessions.deleteOf(userId);
  }

  /**
   * An admin creates a local account from the web: refused when the id is taken (the CLI's `user add` also
   * updates, a form must not overwrite someone by mistake). Returns the first password, generated, shown once.
   */
  async createLocalUser(userId: string, emails: string[], isAdmin: boolean): Promise<string> {
    if (!USER_ID.test(userId)) throw Errors.restBadParameter('user_id');
    if (emails.length === 0 || !emails.every(isEmail)) throw Errors.badEmail('email');
    if (await this.d.repos.users.record(userId)) throw Errors.userExists('user_id');
    await this.addUser(userId, emails, null);
    const password = await this.resetPassword(userId);
    if (isAdmin) await this.d.users.addAdmin(userId);
    return password;
  }

  /** A new random password for a local account (its sessions end), returned once to show; only its hash is kept. */
  async resetPassword(userId: string): Promise<string> {
    const password = this.d.ids.password();
    await this.setPassword(userId, password);
    return password;
  }

  /**
   * The user changes their own password: the current one must be right (and is throttled like a login); the
   * other sessions end, the one asking (`keepSessionToken`) stays signed in.
   */
  async changeOwnPassword(
    userId: string,
    current: string,
    next: string,
    keepSessionToken: string | undefined,
    ip: string,
  ): Promise<void> {
    const hash = await this.d.repos.localAccounts.passwordHash(userId);
    if (!hash) throw Errors.userNotFound();
    checkPassword(next);
    const attempt = await this.throttle.attempt(userId, ip, this.d.clock());
    if (!(await this.d.passwords.verify(current, hash))) throw Errors.userPasswordIncorrect('current_password');
    await attempt.succeeded();
    await this.dropRemoteSecret(userId);
    await this.d.repos.localAccounts.setPassword(userId, await this.d.passwords.hash(next), this.d.clock());
    await this.d.repos.sessions.deleteOf(userId, keepSessionToken ? sessionId(keepSessionToken) : undefined);
  }

  /**
   * A new password ends the remote-user secret too (a stolen secret must not outlive the change): the old one
   * stops working at once, and a new one is made when the user next looks at their profile (GET /user). Done
   * before the password changes, so a failure leaves no new password beside the old secret.
   */
  private async dropRemoteSecret(userId: string): Promise<void> {
    await this.d.repos.users.setRemoteSecret(userId, null);
  }

  /**
   * Refuses (403) a password on another provider's account; false when there is no such user. Checked before
   * anything is written, so a refused `ferry user add … --password-stdin` changes nothing.
   */
  private async mayHavePassword(userId: string): Promise<boolean> {
    const owner = await this.d.repos.users.owner(userId, true);
    if (owner && !owner.hasPassword && owner.provider !== null && owner.provider !== LOCAL_OWNER)
      throw Errors.loginAccountElsewhere('user_id');
    return owner !== undefined;
  }

  /** True when the user has a local account (a password to change). */
  async isLocal(userId: string): Promise<boolean> {
    return (await this.d.repos.localAccounts.passwordHash(userId)) !== undefined;
  }

  /**
   * Users in the order of their ids: all of them, or one page (docs/architecture.md, "Lists and pages"); read
   * in a few statements a page, not a few per user. `admin` is true for an admin by the config, the database or
   * their identity provider (its admin_groups or admin_values at the last sign-in: `adminByProvider`);
   * `provider` is whose the account is.
   */
  async listUsers(page: Page | null = null): Promise<
    {
      id: string;
      emails: string[];
      local: boolean;
      admin: boolean;
      adminByProvider: boolean;
      provider: string | null;
      links: string[];
    }[]
  > {
    const configAdmins = this.d.users.configAdminIds();
    return (await this.d.repos.users.listPage(page)).map((u) => ({
      id: u.id,
      emails: u.emails,
      local: u.local,
      admin: u.providerAdmin || u.dbAdmin || configAdmins.includes(u.id),
      adminByProvider: u.providerAdmin,
      provider: u.provider,
      links: u.links,
    }));
  }

  /**
   * Ends a local account: no more login, its sessions and remote-user secret gone. The user's Transfers and
   * Guests stay until they expire, so recipients keep what was sent to them.
   */
  async removeUser(userId: string): Promise<void> {
    await this.d.repos.localAccounts.delete(userId).then((ok) => {
      if (!ok) throw Errors.userNotFound();
    });
    await this.d.repos.sessions.deleteOf(userId);
    await this.d.repos.users.setRemoteSecret(userId, null);
  }

  /**
   * An admin removes a local account from the web: as removeUser, and a grant of admin in the database goes
   * with it (a later account of the same id starts without). Never one's own: another admin must do it.
   * `actorId` null: an admin application acting as itself.
   */
  async removeUserBy(actorId: string | null, userId: string): Promise<void> {
    if (actorId === userId) throw Errors.userCannotChangeSelf('user_id');
    await this.removeUser(userId);
    await this.d.repos.users.removeAdmin(userId);
  }

  /** An admin grants or withdraws admin (in the database); never their own. */
  async setAdminBy(actorId: string | null, userId: string, isAdmin: boolean): Promise<void> {
    if (actorId === userId) throw Errors.userCannotChangeSelf('admin');
    if (!(await this.d.repos.users.record(userId))) throw Errors.userNotFound();
    if (isAdmin) await this.d.users.addAdmin(userId);
    else await this.d.users.removeAdmin(userId);
  }

  /** First start with the local SP and no account: `admin` with a random password, returned once to print. */
  async ensureInitialAdmin(): Promise<string | null> {
    if ((await this.d.repos.localAccounts.count()) > 0) return null;
    const password = this.d.ids.password();
    const hash = await this.d.passwords.hash(password);
    // An account "admin" another provider made stays theirs: no first account is made (the operator adds one).
    const owner = await this.d.repos.users.owner('admin', true);
    if (owner && owner.provider !== null && owner.provider !== LOCAL_OWNER) return null;
    // Several processes may start at once on a new data dir: only the one whose insert lands prints a password.
    await this.addUser('admin', [PLACEHOLDER_EMAIL], null);
    if (!(await this.d.repos.localAccounts.createFirst('admin', hash, this.d.clock()))) return null;
    await this.d.repos.users.adopt('admin', LOCAL_OWNER);
    await this.d.users.addAdmin('admin');
    return password;
  }

  async addRemoteApp(name: string, isAdmin: boolean): Promise<string> {
    if (!APP_NAME.test(name)) throw Errors.restBadParameter('name');
    const secret = this.d.ids.secret();
    if (!(await this.d.repos.remoteApps.add(name, secret, isAdmin, this.d.clock())))
      throw Errors.restBadParameter(`${name} exists`);
    return secret;
  }

  /** A new secret; the old one keeps working for graceS seconds (0: it stops at once). */
  async rotateRemoteApp(name: string, graceS: number): Promise<{ secret: string; isAdmin: boolean }> {
    if (!Number.isSafeInteger(graceS) || graceS < 0) throw Errors.restBadParameter('grace');
    const app = await this.d.repos.remoteApps.get(name);
    if (!app) throw Errors.restBadParameter(`${name} unknown`);
    const secret = this.d.ids.secret();
    await this.d.repos.remoteApps.rotate(name, secret, graceS > 0 ? this.d.clock() + graceS : null);
    return { secret, isAdmin: app.isAdmin };
  }

  async remoteAppExists(name: string): Promise<boolean> {
    return name.length <= 64 && (await this.d.repos.remoteApps.get(name)) !== undefined;
  }

  /** Names and flags only: secrets are shown once, when created or rotated. */
  async listRemoteApps(): Promise<{ name: string; admin: boolean; created: number; graceUntil: number | null }[]> {
    const now = this.d.clock();
    return (await this.d.repos.remoteApps.list()).map((a) => ({
      name: a.name,
      admin: a.isAdmin,
      created: a.created,
      graceUntil: a.oldSecret && (a.oldSecretUntil ?? 0) > now ? a.oldSecretUntil : null,
    }));
  }

  async removeRemoteApp(name: string): Promise<void> {
    if (!(await this.d.repos.remoteApps.remove(name))) throw Errors.restBadParameter(`${name} unknown`);
  }
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw Errors.restBadParameter(`password: at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > 1024) throw Errors.restBadParameter('password: at most 1024 characters');
}
