import type { Config } from '../config/defaults';
import { GuestTokenAuthenticator } from '../auth/guest-token';
import type { IdentityProviders } from '../auth/identity-providers';
import type { Authenticator } from '../auth/principal';
import { buildIdentityProviders, providerConfigs } from '../auth/providers/registry';
import { RemoteApplicationAuthenticator, RemoteUserAuthenticator } from '../auth/remote';
import { SessionServiceProvider } from '../auth/session-sp';
import { threadedSignatureCheck } from '../auth/signature';
import { AccountsService } from '../domain/accounts';
import type { Clock, IdGenerator, PasswordHasher, Repositories, UnitOfWork } from '../domain/ports';
import { SignInService } from '../domain/sign-in';
import { UsersService } from '../domain/users';
import type { Logger } from '../log';
import type { BodyPool } from '../util/body-pool';
import type { HashThread } from '../util/hash-thread';

export interface AccountPorts {
  repos: Repositories;
  uow: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  passwords: PasswordHasher;
}

/** The users, their local accounts and sessions, and sign-in under the rule of whose an account is. */
export function composeAccounts(config: Config, settings: () => Config, p: AccountPorts) {
  const users = new UsersService({
    store: p.repos.users,
    configAdmins: () => settings().admin,
    clock: p.clock,
    ids: p.ids,
  });
  const accounts = new AccountsService({ ...p, users });
  const signIn = new SignInService({
    repos: p.repos,
    users,
    accounts,
    clock: p.clock,
    providers: providerConfigs(config.auth.sp).map((sp) => ({
      id: sp.id,
      type: sp.type,
      linkAccountsOf: sp.link_accounts_of,
      adoptUnattributed: sp.adopt_unattributed,
    })),
  });
  return { users, accounts, signIn, userLang: (id: string) => users.lang(id) };
}

export type Accounts = ReturnType<typeof composeAccounts>;

export interface IdentityDeps {
  repos: Repositories;
  clock: Clock;
  settings: () => Config;
  log: Logger;
  hashThread: HashThread;
  bodyPool: BodyPool;
}

/**
 * The identity providers of auth.sp (src/auth/providers/registry.ts) and the authenticators in the spec's
 * evaluation order: guest token, service provider (the providers that vouch for each request, then the sessions
 * the others' sign-ins made), remote application, remote user.
 */
export async function composeIdentity(
  config: Config,
  a: Accounts,
  d: IdentityDeps,
): Promise<{ identity: IdentityProviders; authenticators: Authenticator[] }> {
  const { repos, clock } = d;
  const identity = await buildIdentityProviders(config, {
    ...a,
    clock,
    baseUrl: () => d.settings().base_url,
    logLine: (l) => d.log.info(l),
    oneTime: repos.signatures,
  });
  const authenticators: Authenticator[] = [new GuestTokenAuthenticator((t) => repos.guests.findByToken(t), clock)];
  authenticators.push(...identity.authenticators());
  if (identity.signsIn) {
    const signsInHere = (id: string) => (identity.get(id)?.style ?? 'proxy') !== 'proxy';
    authenticators.push(new SessionServiceProvider(repos.sessions, a.users, clock, signsInHere));
  }
  const sig = {
    baseUrl: () => d.settings().base_url,
    maxAge: config.auth.signature_max_age_s,
    maxFuture: config.auth.signature_max_future_s,
    check: threadedSignatureCheck(d.hashThread, d.bodyPool),
  };
  if (config.auth.remote_application_enabled)
    authenticators.push(new RemoteApplicationAuthenticator(repos.remoteApps, repos.signatures, a.users, sig, clock));
  if (config.auth.remote_user_enabled)
    authenticators.push(new RemoteUserAuthenticator(repos.users, repos.signatures, a.users, sig, clock));
  return { identity, authenticators };
}
