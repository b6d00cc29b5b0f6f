/**
 * Who owns local accounts (users.provider of an account with a password). Its own module: the sign-in rule
 * (sign-in.ts) and the accounts service (accounts.ts) both need it, and sign-in.ts names the accounts service's
 * types, so neither may import the other's values (no import circle: docs/architecture.md).
 */
export const LOCAL_OWNER = 'local';
