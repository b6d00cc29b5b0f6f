import type { IdentityKind } from '../kind';
import { samlProblems, samlSchema } from './config';
import { samlCommands } from './keygen-command';
import { pemProblems } from './pem';

/** SAML 2.0: ferry is the service provider of an identity provider or a federation's (./provider.ts). */
export const samlKind: IdentityKind<typeof samlSchema> = {
  type: 'saml',
  schema: samlSchema,
  problems: samlProblems,
  startupProblems: pemProblems,
  // The identity provider's answers and requests, and the state it brings back: never in the request log.
  secretQueryArgs: ['SAMLResponse', 'SAMLRequest', 'RelayState'],
  commands: samlCommands,
  // @node-saml's modules are loaded only when a SAML provider is configured: every other process (each CLI
  // command reads the config) would pay for them for nothing, as src/storage/kinds/s3.ts says of the AWS SDK.
  create: async (cfg, deps) => new (await import('./provider')).SamlProvider(cfg, deps),
};
