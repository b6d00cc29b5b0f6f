/**
 * Where every random id, token and secret comes from (the auth adapter implements it with node:crypto). The
 * sizes are part of the contract: docs/security.md promises them.
 */
export interface IdGenerator {
  /** Download tokens and File uids (which double as chunk-upload keys): 128 bits, 32 hex characters. */
  token(): string;
  /** Guest tokens: 160 bits, hex. */
  guestToken(): string;
  /** Remote-application and remote-user secrets: 256 bits, hex. */
  secret(): string;
  /** The first admin's password: 144 bits, URL-safe. */
  password(): string;
  /** A browser session's cookie token (256 bits) and security token (192 bits). */
  sessionTokens(): { token: string; csrfToken: string };
}

/** Password hashing (scrypt in the auth adapter); slow on purpose, hence async. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}
