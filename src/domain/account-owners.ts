/**
 * Who owns local accounts (users.provider of an account with a password). Its own module: the sign-in rule
 * (sign-in.ts) and the accounts service (accounts.ts) both need it, and sign-in.ts names the accounts service's
 * types, so neither may import the other's values (no import circle: docs/architecture.md).
 */
export const LOCAL_OWNER = 'local';

/**
 * The provider of local accounts: the kind of `auth.sp` whose type is their owner (its default id too), so that
 * the sign-in rule asks this, never a kind's name (docs/architecture.md, "How to add … An identity provider").
 */
export function ofLocalAccounts(p: { readonly type: string }): boolean {
  return p.type === LOCAL_OWNER;
}
