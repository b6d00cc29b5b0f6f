import { Errors, ServiceError } from './errors';
import type { AccountsService, LoginResult } from './accounts';
import type { UsersService } from './users';
import type { AccountOwner, Clock, Repositories } from './ports';
import { LOCAL_OWNER, ofLocalAccounts } from './account-owners';

/**
 * Sign-in, whatever the kind of identity provider: the person a provider vouched for becomes a ferry account
 * and a session, under one rule (docs/single-sign-on.md, "User ids of several providers"):
 *
 * A user id belongs to the provider that made it. A sign-in through provider B never lands in an account that
 * provider A made, unless an operator linked them on purpose (`link_accounts_of` in B's config, or `ferry user
 * link <user> B`), and never in a local account with a password, whatever the links say: a directory entry or
 * a self-registered OpenID account named "admin" does not become ferry's built-in admin.
 *
 * Accounts from before ferry recorded providers have none (migration 26 attributes what it can: a password →
 * local, else the provider of the newest session). Such an account is adopted by the first provider that signs
 * its user in only when no other could have made it (the config has a single provider besides local), or when
 * the operator said so (`adopt_unattributed`, or a link); otherwise the sign-in is refused until they decide.
 */

export { LOCAL_OWNER } from './account-owners';

/** A person as a provider vouches for them, on the way to becoming a ferry user. */
export interface SignedInPerson {
  /** The ferry user id (the same person must get the same uid at every sign-in). */
  uid: string;
  /** Their e-mail addresses (at least one for a user who sends; recorded on the user). */
  emails: string[];
  displayName: string | null;
  /** Admin through the provider (a group or role), besides the config's `admin` list and `ferry admin add`. */
  admin: boolean;
  /**
   * What the identity provider may later name this sign-in by to end it (its session id, or a name id
   * and session index): a logout it starts ends every ferry session with this reference.
   */
  sessionRef?: string | null;
  /** Kept with the session for the provider's own logout (the ID token, sent back as id_token_hint). Never logged. */
  sessionData?: string | null;
  /**
   * The browser's device token to keep (local accounts: the login throttle lets a browser that signed in before
   * through on its own count; docs/hardening.md, "Login throttle").
   */
  device?: string;
}

/** What the rule knows of a provider: its auth.sp entry's id, kind and the operator's links. */
export interface ProviderPolicy {
  id: string;
  type: string;
  /** Ids of other providers whose accounts this one may sign in to (never local accounts with a password). */
  linkAccountsOf: string[];
  /** May adopt accounts no provider is recorded for, beside other providers. */
  adoptUnattributed: boolean;
}

/** A provider with a password form (local accounts, a directory), as the login routes hand it over. */
export interface PasswordProvider {
  readonly id: string;
  readonly type: string;
  checkPassword?(userId: string, password: string, clientAddress: string, device?: string): Promise<SignedInPerson>;
}

/**
 * `enter`: the account is this provider's (or linked to it), or new; `adopt`: it has no provider yet and this one
 * may take it; `refuse`: another provider's, or a local account.
 */
export type Entry = 'enter' | 'adopt' | 'refuse';

/**
 * The rule, for an account as stored (`undefined`: none yet). `soleProvider`: `p` is the only provider of the
 * config besides local, so an account without a provider can only be its own.
 */
export function entryFor(p: ProviderPolicy, owner: AccountOwner | undefined, soleProvider: boolean): Entry {
  if (!owner) return ofLocalAccounts(p) ? 'refuse' : 'enter';
  // A local account is entered with its password, and with nothing else.
  if (ofLocalAccounts(p) || owner.hasPassword) return ofLocalAccounts(p) && owner.hasPassword ? 'enter' : 'refuse';
  if (owner.provider === p.id) return 'enter';
  if (owner.links.includes(p.id)) return owner.provider === null ? 'adopt' : 'enter';
  if (owner.provider === null) return soleProvider || p.adoptUnattributed ? 'adopt' : 'refuse';
  // A local account whose password was removed stays the local provider's: only an explicit link opens it.
  if (owner.provider === LOCAL_OWNER) return 'refuse';
  return p.linkAccountsOf.includes(owner.provider) ? 'enter' : 'refuse';
}

/** Refused by the rule: 403 login_account_elsewhere, with what the log line says (never in the answer). */
export class AccountElsewhere extends ServiceError {
  constructor(
    readonly userId: string,
    readonly provider: string,
    readonly owner: string | null,
  ) {
    super(Errors.loginAccountElsewhere.id, Errors.loginAccountElsewhere.status);
  }

  /** One log line: who tried what, and whose the account is. */
  get detail(): string {
    const whose = this.owner === null ? 'no provider recorded' : `it belongs to "${this.owner}"`;
    return `user id ${this.userId} is not an account of "${this.provider}" (${whose}; ferry user link ${this.userId} ${this.provider} lets it in)`;
  }
}

export interface SignInDeps {
  repos: Pick<Repositories, 'users' | 'localAccounts'>;
  users: UsersService;
  accounts: AccountsService;
  clock: Clock;
  /** auth.sp, in the config's order. */
  providers: ProviderPolicy[];
}

export class SignInService {
  private readonly byId = new Map<string, ProviderPolicy>();
  private readonly others: ProviderPolicy[];

  constructor(private readonly d: SignInDeps) {
    for (const p of d.providers) this.byId.set(p.id, p);
    this.others = d.providers.filter((p) => !ofLocalAccounts(p));
  }

  private policy(id: string): ProviderPolicy {
    return this.byId.get(id) ?? { id, type: 'unknown', linkAccountsOf: [], adoptUnattributed: false };
  }

  private decide(p: ProviderPolicy, owner: AccountOwner | undefined): Entry {
    return entryFor(p, owner, this.others.length === 1 && this.others[0].id === p.id);
  }

  /**
   * The account `person` enters through provider `providerId` (made on first sight as that provider's), with
   * their e-mail addresses and admin rights recorded; AccountElsewhere (403) when the rule refuses. The header
   * kind calls this on each request; it writes only what changed.
   */
  async admit(providerId: string, person: SignedInPerson): Promise<{ isAdmin: boolean; emails: string[] }> {
    const p = this.policy(providerId);
    const users = this.d.repos.users;
    let owner = await users.owner(person.uid);
    if (!owner && !ofLocalAccounts(p)) {
      // One statement: two first sign-ins at once make one account, and the rule then judges what is stored.
      await users.createFor(person.uid, p.id, this.d.clock());
      owner = await users.owner(person.uid, true);
    }
    let entry = this.decide(p, owner);
    // What was read may be a second old (src/db/users-repo.ts): a refusal, or a change, is decided on the row.
    if (entry !== 'enter') {
      owner = await users.owner(person.uid, true);
      entry = this.decide(p, owner);
    }
    if (entry === 'adopt') {
      await users.adopt(person.uid, p.id);
      owner = await users.owner(person.uid, true);
      entry = this.decide(p, owner);
    }
    if (entry !== 'enter' || !owner) throw new AccountElsewhere(person.uid, p.id, owner?.provider ?? null);
    const seen = await this.d.users.seen(person.uid, person.emails);
    if (!ofLocalAccounts(p) && owner.providerAdmin !== person.admin)
      await users.setProviderAdmin(person.uid, person.admin);
    if (person.displayName) await this.d.users.setDisplayName(person.uid, person.displayName);
    return { isAdmin: seen.isAdmin || person.admin, emails: seen.emails };
  }

  /** A person a provider vouched for gets a new session (after the rule let them in). */
  async signIn(providerId: string, person: SignedInPerson): Promise<LoginResult> {
    await this.admit(providerId, person);
    return this.d.accounts.openSession({
      userId: person.uid,
      provider: providerId,
      providerAdmin: person.admin,
      providerRef: person.sessionRef ?? null,
      providerData: person.sessionData ?? null,
    });
  }

  /**
   * A user name and password, checked by the providers that hold passwords, in this order: a user id with a
   * local password is checked against it alone (no directory ever sees that password, and a directory that is
   * down does not matter); any other goes to each directory in `list`'s order (auth.sp's) until one signs the
   * person in to an account the rule lets it enter. When none does: 403 when a directory knew the password but
   * the account is another provider's, else 503 when a directory could not be asked, else 401.
   */
  async withPassword(
    list: PasswordProvider[],
    userId: string,
    password: string,
    clientAddress: string,
    device?: string,
  ): Promise<{ provider: PasswordProvider; person: SignedInPerson; session: LoginResult }> {
    const local = list.find((p) => ofLocalAccounts(p));
    const isLocal = local !== undefined && (await this.d.repos.localAccounts.passwordHash(userId)) !== undefined;
    const order = isLocal ? [local] : list.filter((p) => !ofLocalAccounts(p));
    // Only local accounts in the list: the local check answers (401 for an unknown user, in the same time).
    if (order.length === 0 && local) order.push(local);
    let elsewhere: ServiceError | null = null;
    let down: ServiceError | null = null;
    let wrong: ServiceError | null = null;
    for (const p of order) {
      if (!p.checkPassword) continue;
      let person: SignedInPerson;
      try {
        person = await p.checkPassword(userId, password, clientAddress, device);
      } catch (e) {
        if (!(e instanceof ServiceError) || (e.status !== 401 && e.status !== 503)) throw e;
        if (e.status === 401) wrong ??= e;
        else down ??= e;
        continue;
      }
      try {
        return { provider: p, person, session: await this.signIn(p.id, person) };
      } catch (e) {
        if (!(e instanceof AccountElsewhere)) throw e;
        elsewhere ??= e;
      }
    }
    throw elsewhere ?? down ?? wrong ?? Errors.restAuthenticationRequired('login');
  }

  /** An operator lets `providerId` sign in to `userId`'s account too (never a local account with a password). */
  async link(userId: string, providerId: string): Promise<boolean> {
    const owner = await this.d.repos.users.owner(userId, true);
    if (!owner) throw Errors.userNotFound();
    if (owner.hasPassword) throw Errors.loginAccountElsewhere('user_id');
    const p = this.byId.get(providerId);
    if (!p || ofLocalAccounts(p)) throw Errors.restBadParameter('provider');
    return this.d.repos.users.link(userId, providerId, this.d.clock());
  }

  async unlink(userId: string, providerId: string): Promise<boolean> {
    if (!(await this.d.repos.users.owner(userId, true))) throw Errors.userNotFound();
    return this.d.repos.users.unlink(userId, providerId);
  }
}
