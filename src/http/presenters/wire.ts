import type { Config } from '../../config/defaults';
import type { DateJson } from './date';
import type { GuestJson } from './guest';
import type { presentSharing, presentVirusScan } from './sharing';
import type { presentAuditEntry, presentDelivery, presentFile, presentRecipient, presentTransfer } from './transfer';
import type { presentUser } from './user';
import type { z } from 'zod';
import type { Input } from '../input';
import type { createInput, recipientInput, updateInput } from '../routes/transfer';
import type { recipientUpdateInput } from '../routes/recipient';
import type { guestCreateInput, guestUpdateInput } from '../routes/guest';
import type { userUpdateInput } from '../routes/user';
import type {
  adminFlagInput,
  newUserInput,
  ownPasswordInput,
  quotaInput,
  resetPasswordInput,
  userEmailsInput,
} from '../routes/user-admin';
import type { configUpdateInput } from '../routes/config';
import type { credentials } from '../routes/login';

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

/** What a route's body schema accepts, as a client sends it (src/http/input.ts). */
type BodyOf<I> = I extends Input<infer S> ? (S['body'] extends z.ZodType ? z.input<S['body']> : never) : never;

/**
 * The request bodies the pages send, taken from the routes' own schemas: a page cannot send a body the server's
 * schema refuses (a field misspelt, a flag sent as a string), nor to a route that takes none of that kind.
 */
export interface PutBodies {
  [path: `/transfer/${number}`]: BodyOf<typeof updateInput>;
  [path: `/recipient/${number}`]: BodyOf<typeof recipientUpdateInput>;
  [path: `/guest/${number}`]: BodyOf<typeof guestUpdateInput>;
  '/user': BodyOf<typeof userUpdateInput>;
  '/user/@me': BodyOf<typeof userUpdateInput>;
  '/user/@me/password': BodyOf<typeof ownPasswordInput>;
  [path: `/user/${string}/email`]: BodyOf<typeof userEmailsInput>;
  [path: `/user/${string}/admin`]: BodyOf<typeof adminFlagInput>;
  [path: `/user/${string}/quota`]: BodyOf<typeof quotaInput>;
  '/config': BodyOf<typeof configUpdateInput>;
}

export interface PostBodies {
  '/transfer': BodyOf<typeof createInput>;
  [path: `/transfer/${number}/recipient`]: BodyOf<typeof recipientInput>;
  '/guest': BodyOf<typeof guestCreateInput>;
  '/user': BodyOf<typeof newUserInput>;
  [path: `/user/${string}/password`]: BodyOf<typeof resetPasswordInput>;
  '/login': z.input<typeof credentials>;
  [path: `/login/${string}`]: z.input<typeof credentials>;
}

/** A path the pages may send a body to, with the body it takes: one tuple per route. */
export type BodyCall<B> = { [P in keyof B]: [path: P, json: B[P]] }[keyof B];
