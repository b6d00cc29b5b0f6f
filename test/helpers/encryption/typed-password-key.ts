import { deriveKey } from '../../../src/shared-crypto/format';

/**
 * The key a FileSender page derives from a password the sender typed (password version 1, no encoding) and a
 * Transfer's salt: what a recipient's page computes before it decrypts anything.
 */
export function typedPasswordKey(password: string, salt: string, iterations: number) {
  return deriveKey({ password, passwordVersion: 1, passwordEncoding: 'none', salt, iterations });
}
