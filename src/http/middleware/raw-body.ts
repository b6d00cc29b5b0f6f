import type { Middleware } from 'koa';
import { ServiceError } from '../../domain/errors';
import type { FerryState } from '../state';

/**
 * A signed request's signature covers its body (spec: the chunk data for a chunk upload), so a signed
 * non-JSON body is read into memory — bounded by the chunk size limit — before authentication. Unsigned
 * chunk uploads are never buffered: they stream to disk.
 */
export function rawBodyForSignatures(): Middleware<FerryState> {
  return async (ctx, next) => {
    const signed = typeof ctx.query.signature === 'string';
    const hasBody = ctx.method === 'PUT' || ctx.method === 'POST';
    if (!signed || !hasBody || ctx.is('application/json', 'application/x-www-form-urlencoded') || ctx.state.rawBody) return next();
    const limit = ctx.state.services.settings.get().upload_chunk_size + 64 * 1024;
    const declared = Number(ctx.get('Content-Length') || 0);
    if (declared > limit) throw new ServiceError('storage_chunk_too_large', 413);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of ctx.req) {
      size += (c as Buffer).length;
      if (size > limit) throw new ServiceError('storage_chunk_too_large', 413);
      chunks.push(c as Buffer);
    }
    ctx.state.rawBody = Buffer.concat(chunks);
    return next();
  };
}
