import { z } from 'zod';
import type { Middleware } from 'koa';
import { Errors } from '../../domain/errors';
import type { FerryContext, FerryState } from '../state';
import type { BodyPool } from '../../util/body-pool';
import { uploadGarbage } from '../../util/socket-garbage';
import { isChunkUpload } from '../routes/file';

/**
 * Bytes of signed bodies (other than chunks) read before their signature is checked, for the whole process:
 * past it such a request is answered 429 before its body is read. Legacy whole-file uploads that are signed
 * are the only big ones; many at once are anonymous clients holding memory.
 */
const UNVERIFIED_BUDGET = 64 * 1024 * 1024;
let unverifiedHeld = 0;

/** Room for a chunk plus whatever a client may wrap around it. */
export const RAW_BODY_SLACK = 64 * 1024;

/**
 * A signed request's signature covers its body (spec: the chunk data for a chunk upload), so the body of a
 * signed request the body parser left alone (a chunk, whatever its Content-Type) is read into ctx.state.rawBody before
 * authentication, at most upload_chunk_size + slack (413 beyond). Handlers that read a body (the chunk upload,
 * POST /file/{id}/whole) use ctx.state.rawBody when it is set instead of streaming ctx.req, which is spent.
 * Only requests that can be signed requests are buffered — a signed mode enabled, a remote application that
 * exists or a user who has a secret, a timestamp inside the window — so anonymous clients cannot make the
 * server hold bodies with a made-up `signature` argument. Unsigned chunk uploads are never buffered: they
 * stream to disk.
 */
export function rawBodyForSignatures(): Middleware<FerryState> {
  return async (ctx, next) => {
    const c = ctx as FerryContext;
    const hasBody = ctx.method === 'PUT' || ctx.method === 'POST';
    const parsed = ctx.request.rawBody !== undefined; // JSON and forms: the body parser kept the text
    if (!hasBody || parsed || ctx.state.rawBody) return next();
    // A signed chunk is never held: its HMAC is computed as it streams to the store (docs/architecture.md,
    // Signed chunks while they stream). The authenticators check all but the body before a byte is read.
    if (isChunkUpload(ctx) && signedArgs.shape.signature.safeParse(ctx.query.signature).success) {
      ctx.state.bodyFollows = true;
      return next();
    }
    if (!(await maySign(c))) return next();
    const limit = ctx.state.services.settings.get().upload_chunk_size + RAW_BODY_SLACK;
    const declared = Number(ctx.get('Content-Length') || 0);
    if (declared > limit) throw Errors.storageChunkTooLarge('body');
    // Every body held before its signature is checked counts against one budget for the whole process.
    const reserved = declared > 0 ? declared : limit;
    if (unverifiedHeld + reserved > UNVERIFIED_BUDGET) throw Errors.rateLimitExceeded('unverified bodies');
    unverifiedHeld += reserved;
    const pool = ctx.state.services.bodyPool;
    let body: Buffer;
    try {
      body = await readBody(ctx.req, pool, declared, limit);
    } finally {
      unverifiedHeld -= reserved;
    }
    ctx.state.rawBody = body;
    try {
      return await next();
    } finally {
      // The handler has written the bytes and the signature was checked: nothing reads them any more.
      if (ctx.state.rawBody) pool.give(ctx.state.rawBody);
      ctx.state.rawBody = undefined;
    }
  };
}

/**
 * The body in reused memory of its own (shared memory the hashing thread reads in place), so it leaves no
 * garbage. With a Content-Length (the usual case) each piece is copied in as it arrives and dies young (and is
 * counted, util/socket-garbage.ts): kept in a list until the end, the pieces of every 5 MiB chunk outlived the
 * young generation and cost a signed upload of 2 GiB some seventy full collections.
 */
async function readBody(req: AsyncIterable<unknown>, pool: BodyPool, declared: number, limit: number): Promise<Buffer> {
  if (declared > 0) {
    const body = pool.take(declared, limit);
    let at = 0;
    try {
      // The HTTP parser never hands over more than Content-Length.
      for await (const piece of req) {
        const chunk = piece as Buffer;
        at += chunk.copy(body, at);
        uploadGarbage.discarded(chunk.length);
      }
    } catch (e) {
      pool.give(body);
      throw e;
    }
    if (at !== declared) {
      pool.give(body);
      throw Errors.badRequestBody('body ended early');
    }
    return body;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw Errors.storageChunkTooLarge('body');
    chunks.push(chunk as Buffer);
  }
  const body = pool.take(size, limit);
  let at = 0;
  for (const c of chunks) at += c.copy(body, at);
  return body;
}

/** A signed request's arguments, each given once (anything else is not a request that may be signed). */
const signedArgs = z.object({
  signature: z.string(),
  timestamp: z.string(),
  remote_application: z.string().optional(),
  remote_user: z.string().optional(),
});

async function maySign(ctx: FerryContext): Promise<boolean> {
  const args = signedArgs.safeParse(ctx.query);
  if (!args.success) return false;
  const q = args.data;
  const s = ctx.state.services;
  const auth = s.settings.get().auth;
  const ts = Number(q.timestamp);
  const now = s.clock();
  if (!Number.isSafeInteger(ts) || ts < now - auth.signature_max_age_s || ts > now + auth.signature_max_future_s)
    return false;
  // The same precedence as the authenticators: with remote_application the request is the application's.
  if (q.remote_application !== undefined) {
    return auth.remote_application_enabled && (await s.accounts.remoteAppExists(q.remote_application));
  }
  return auth.remote_user_enabled && q.remote_user !== undefined && (await s.users.hasRemoteSecret(q.remote_user));
}
