import { z } from 'zod';
import { zArrayOf, zBool, zObject, zStr } from '../../config/zod-checks';

/** An id of `auth.sp`: it names the provider's routes, /login/<id>/…, and the accounts it made. */
export const PROVIDER_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;

/**
 * The schema of one kind's `auth.sp` entry: `type`, the keys every entry has, and the kind's own (each a zod
 * schema of src/config/zod-checks.ts, with its default where it has one).
 */
export function entrySchema<const T extends string, S extends z.ZodRawShape>(type: T, label: string, own: S) {
  return zObject({
    type: z.literal(type),
    /** Default: its type. */
    id: zStr(PROVIDER_ID, 'lower-case letters, digits and hyphens (at most 32)').default(type),
    /** The login page's button or form title. */
    label: zStr(/^[^\n]{1,80}$/, 'a short label').default(label),
    /**
     * Ids of other providers whose accounts this one may sign in to: the operator says the same user id names
     * the same person in both (docs/single-sign-on.md, "User ids of several providers"). Never a local account.
     */
    link_accounts_of: zArrayOf(zStr(PROVIDER_ID, 'a provider id')).default([]),
    /** May adopt accounts that no provider is recorded for (made before ferry recorded one), beside other providers. */
    adopt_unattributed: zBool().default(false),
    ...own,
  });
}
