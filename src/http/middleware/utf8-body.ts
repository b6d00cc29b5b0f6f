import type { Middleware } from 'koa';
import { Errors } from '../../domain/errors';
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
      if (!valid) throw Errors.badRequestBody('encoding');
    };
    const parsed = ctx.state as { utf8Checked?: () => void };
    parsed.utf8Checked = refuse;
    return next();
  };
}

/**
 * Placed right after the body parser: by then the whole body went past the check. Valid bytes can still spell
 * a lone surrogate as a JSON escape ("\ud800"), which SQLite would store as U+FFFD: refused the same way.
 */
export function utf8Verdict(): Middleware<FerryState> {
  return (ctx, next) => {
    (ctx.state as { utf8Checked?: () => void }).utf8Checked?.();
    if (ctx.is('application/json') && hasLoneSurrogate((ctx.request as { body?: unknown }).body)) {
      throw Errors.badRequestBody('encoding');
    }
    return next();
  };
}

const LONE_SURROGATE = /\p{Cs}/u;

/** Walks keys and values without recursion: a body nested 100,000 deep must not overflow the stack. */
function hasLoneSurrogate(body: unknown): boolean {
  const stack: unknown[] = [body];
  // A 1 MB body holds well under a million values; the bound only guarantees the loop ends.
  for (let n = 0; stack.length > 0 && n < 2_000_000; n++) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) stack.push(k, x);
    }
  }
  return false;
}
