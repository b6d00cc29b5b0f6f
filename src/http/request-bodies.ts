/**
 * The request bodies the web pages send, as the routes' own schemas take them: types only, so the pages import
 * them (`import type`, erased from the bundle) and never a line of the server, like the answers' types of
 * ./presenters/wire.ts (docs/architecture.md, What each folder may import). Its own module: the routes import
 * the answers' types, so these cannot live beside them without an import circle.
 */
import type { z } from 'zod';
import type { Input } from './input';
import type { createInput, recipientInput, updateInput } from './routes/transfer';
import type { recipientUpdateInput } from './routes/recipient';
import type { guestCreateInput, guestUpdateInput } from './routes/guest';
import type { userUpdateInput } from './routes/user';
import type {
  adminFlagInput,
  newUserInput,
  ownPasswordInput,
  quotaInput,
  resetPasswordInput,
  userEmailsInput,
} from './routes/user-admin';
import type { configUpdateInput } from './routes/config';
import type { credentials } from './routes/login';

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
