import type { z } from 'zod';
import { LOCAL_OWNER } from '../../../domain/account-owners';
import { entrySchema } from '../entry';

/** Local accounts' entry: its type is the owner recorded on local accounts (src/domain/account-owners.ts). */
export const localSchema = entrySchema(LOCAL_OWNER, 'Account', {});
export type SpLocal = z.output<typeof localSchema>;

/** A local account is its password's: no other provider's accounts, none adopted. */
export function localProblems(p: SpLocal): string[] {
  return p.link_accounts_of.length > 0 || p.adopt_unattributed
    ? [`auth.sp (${p.id}): a local account is entered with its password only (no link_accounts_of, adopt_unattributed)`]
    : [];
}
