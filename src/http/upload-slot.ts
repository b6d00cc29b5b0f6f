import type { Next } from 'koa';
import { UPLOAD_SLOT_RETRY_S } from '../domain/upload-slots';
import { actorOf } from './actor';
import type { FerryContext } from './state';

/**
 * Route step of the upload endpoints, placed after the access check (so the uploader is known, chunk keys
 * included) and before a byte of the body is read: it holds one of the uploader's slots until the request
 * ends, whether it succeeds, fails or its client goes away (the body stream then errors and the handler
 * returns). Beyond max_concurrent_chunk_uploads the answer is 429 with Retry-After; the error middleware
 * closes the connection after it, since the refused body is still on its way.
 */
export async function uploadSlot(ctx: FerryContext, next: Next): Promise<void> {
  const a = actorOf(ctx);
  let release: () => void;
  try {
    release = ctx.state.services.uploadSlots.acquire(`${a.type}:${a.id}`);
  } catch (e) {
    ctx.set('Retry-After', String(UPLOAD_SLOT_RETRY_S));
    throw e;
  }
  try {
    await next();
  } finally {
    release();
  }
}
