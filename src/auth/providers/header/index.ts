import type { IdentityKind } from '../kind';
import { headerSchema } from './config';
import { headerProvider } from './provider';

/** A reverse proxy in front of ferry signs people in and passes who they are in headers. */
export const headerKind: IdentityKind<typeof headerSchema> = {
  type: 'header',
  schema: headerSchema,
  single: true,
  create: headerProvider,
};
