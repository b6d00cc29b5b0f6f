import type { IdentityProvider } from './identity-provider';
import type { Authenticator } from './principal';

/**
 * The identity providers this instance has (auth.sp), in the config's order: the login page shows them in
 * that order, and POST /login without a provider goes to the first one with a password form.
 */
export class IdentityProviders {
  private readonly byId = new Map<string, IdentityProvider>();

  constructor(readonly list: IdentityProvider[]) {
    for (const p of list) this.byId.set(p.id, p);
  }

  get(id: string): IdentityProvider | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The provider of POST /login (the one form of older pages and scripts), if any has a password form. */
  firstPassword(): IdentityProvider | undefined {
    return this.list.find((p) => p.style === 'password');
  }

  /** Local accounts are on: `ferry user …`, the first admin account, the accounts tab. */
  get localAccounts(): boolean {
    return this.list.some((p) => p.localAccounts);
  }

  /** Providers that authenticate each request themselves (the header kind), before sessions are looked at. */
  authenticators(): Authenticator[] {
    return this.list.flatMap((p) => (p.authenticator ? [p.authenticator] : []));
  }

  /** Some provider makes sessions (sign-ins through ferry's own pages). */
  get signsIn(): boolean {
    return this.list.some((p) => p.style !== 'proxy');
  }

  async close(): Promise<void> {
    for (const p of this.list) await p.close?.();
  }
}
