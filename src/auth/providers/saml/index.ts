import type { IdentityKind } from '../kind';
import { samlProblems, samlSchema } from './config';
import { samlCommands } from './keygen-command';
import { pemProblems } from './pem';

/** SAML 2.0: ferry a service provider of one identity provider or a federation's (src/auth/providers/saml/provider.ts). */
export const samlKind: IdentityKind<typeof samlSchema> = {
  type: 'saml',
  schema: samlSchema,
  problems: samlProblems,
  startupProblems: (p) =>
    pemProblems([
      [p.key_file, 'key_file', 'PRIVATE KEY'],
      [p.cert_file, 'cert_file', 'CERTIFICATE'],
      [p.metadata_cert_file, 'metadata_cert_file', 'CERTIFICATE'],
    ]),
  // @node-saml's modules are loaded only when a SAML provider is configured: every other process (each CLI
  // command reads the config) would pay for them for nothing, as src/storage/kinds/s3.ts says of the AWS SDK.
  secretQueryArgs: ['SAMLResponse', 'SAMLRequest', 'RelayState'],
  commands: samlCommands,
  create: async (cfg, deps) => new (await import('./provider')).SamlProvider(cfg, deps),
};
