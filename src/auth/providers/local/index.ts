import { LOCAL_OWNER } from '../../../domain/account-owners';
import type { IdentityKind } from '../kind';
import { localProblems, localSchema } from './config';
import { localProvider } from './provider';

/** Local accounts (`ferry user add`), signed in with their password. */
export const localKind: IdentityKind<typeof localSchema> = {
  type: LOCAL_OWNER,
  schema: localSchema,
  single: true,
  localAccounts: true,
  problems: localProblems,
  create: localProvider,
};
