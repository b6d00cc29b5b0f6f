import type { Middleware } from 'koa';
import { ServiceError } from '../../domain/errors';
import type { FerryState } from '../state';
import { isChunkUpload } from '../routes/file';

/**
 * The body parser decodes JSON and form bodies leniently (bad bytes become U+FFFD, silently stored). This
 * watches the same bytes as they stream past it and refuses a body that is not valid UTF-8.
 */
export function utf8Bodies(): Middleware<FerryState> {
  return async (ctx, next) => {
    if (isChunkUpload(ctx) || !ctx.is('application/json', 'application/x-www-form-urlencoded')) return next();
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let valid = true;
    const check = (chunk: Buffer) => {
      if (!valid) return;
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        valid = false;
      }
    };
    ctx.req.on('data', check);
    ctx.req.once('end', () => {
      try {
        decoder.decode();
      } catch {
        valid = false;
      }
    });
    const refuse = () => {
      if (!valid) throw new ServiceError('bad_request_body', 400, ['encoding']);
    };
    const parsed = ctx.state as { utf8Checked?: () => void };
    parsed.utf8Checked = refuse;
    return next();
  };
}

/** Placed right after the body parser: by then the whole body went past the check. */
export function utf8Verdict(): Middleware<FerryState> {
  return (ctx, next) => {
    (ctx.state as { utf8Checked?: () => void }).utf8Checked?.();
    return next();
  };
}
