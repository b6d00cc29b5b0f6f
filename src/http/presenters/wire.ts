import type { Config } from '../../config/defaults';
import type { DateJson } from './date';
import type { GuestJson } from './guest';
import type { presentSharing, presentVirusScan } from './sharing';
import type { presentAuditEntry, presentDelivery, presentFile, presentRecipient, presentTransfer } from './transfer';
import type { presentUser } from './user';

/**
 * The REST answers' shapes as the presenters build them, for the web pages to read: types only, so the pages
 * import them (`import type`, erased from the bundle) and never a line of the server (docs/architecture.md,
 * What each folder may import). A field the presenters change is a type error in the page that reads it.
 */

export type { DateJson, GuestJson };
export type FileJson = ReturnType<typeof presentFile>;
export type RecipientJson = ReturnType<typeof presentRecipient>;
export type DeliveryJson = NonNullable<ReturnType<typeof presentDelivery>>;
export type TrackingErrorJson = RecipientJson['errors'][number];
export type AuditEntryJson = ReturnType<typeof presentAuditEntry>;
export type UserJson = ReturnType<typeof presentUser>;

/**
 * A Transfer as GET/POST/PUT /transfer answer it: the spec's object, the sharing controls where the server has
 * them (docs/sharing.md), and the virus scan (null when scanning is off).
 */
export type TransferJson = ReturnType<typeof presentTransfer> &
  Partial<ReturnType<typeof presentSharing>> &
  ReturnType<typeof presentVirusScan>;

/** GET /info: `url`, `version` and `logon_url` always, any configuration key the server discloses. */
export type InfoJson = { url: string; version?: string; logon_url?: string } & Partial<Config>;
