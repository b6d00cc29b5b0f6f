import type { AccountsService } from '../../domain/accounts';
import type { UserDirectory } from '../../domain/users';
import type { SignInService } from '../../domain/sign-in';
import type { Clock, SignatureRepository } from '../../domain/ports';

/** What the composition root hands every identity provider it builds. */
export interface ProviderDeps {
  accounts: AccountsService;
  users: UserDirectory;
  /** The account a person a provider vouched for enters (the header kind asks on each request). */
  signIn: Pick<SignInService, 'admit'>;
  clock: Clock;
  /** base_url as it is now (links and callbacks are built from it). */
  baseUrl: () => string;
  /** One line for the server's log (a provider's start-up or a refusal); never a token, code or secret. */
  logLine: (line: string) => void;
  /** One-time values every node shares (an assertion's id): `use` is false when one was already used. */
  oneTime: Pick<SignatureRepository, 'use'>;
}

/** The address a provider's own routes answer at: base_url + /login/<id> + tail. */
export function providerUrl(deps: ProviderDeps, id: string, tail = ''): string {
  return `${deps.baseUrl()}/login/${id}${tail}`;
}
