import type { Middleware } from 'koa';
import { Errors, retryAfterOf, ServiceError } from '../../domain/errors';
import type { Logger } from '../../log';
import type { Context } from 'koa';
import type { FerryState } from '../state';
import { renderErrorPage, wantsErrorPage } from '../web/error-page';
import { requestId } from '../request-id';

/** Turns anything thrown below into the spec's error body; the one place statuses meet error ids. */
export function errorMiddleware(log: Logger): Middleware<FerryState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      renderError(ctx, err, log);
    }
  };
}

/** Writes the spec's error body for err and logs it with the same uid. */
export function renderError(ctx: Context, err: unknown, log: Logger): void {
  const e = toServiceError(err);
  // The request's id, so the uid a user reports finds both this line and the request's own.
  const uid = (ctx.state as Partial<FerryState>).requestId ?? requestId();
  const fields = { id: uid, method: ctx.method, path: ctx.path, status: e.status, error: e.id };
  if (isClientAbort(err)) {
    // One line, no stack: nothing went wrong here (a client gone away is no internal error).
    log.info(`aborted uid=${uid} ${ctx.method} ${ctx.path}: the client went away before its body was complete`, fields);
  } else if (e.status >= 500) {
    // One line with the uid; the stack only with log.debug on (docs/hardening.md, "Internal errors in the log").
    const debug = (ctx.state as Partial<FerryState>).services?.settings.get().log.debug === true;
    const detail = err instanceof Error ? (debug ? (err.stack ?? err.message) : oneLine(err)) : oneLine(String(err));
    log.error(`error uid=${uid} ${ctx.method} ${ctx.path} ${e.id}: ${detail}`, fields);
  } else {
    log.info(`refused uid=${uid} ${ctx.method} ${ctx.path} ${e.status} ${e.id}`, fields);
  }
  if (ctx.headerSent) return; // a streamed answer already started; the socket is closed by the caller
  // Refused before its body was read (too large, wrong type): the rest of the body is still on its way, so
  // this connection cannot carry another request. Drain what arrives and close it after the answer.
  if (!ctx.req.complete) {
    ctx.set('Connection', 'close');
    ctx.req.resume();
  }
  // A refusal that knows when to try again (rate_limit_exceeded's retry_after=N) says so in the header too.
  const wait = retryAfterOf(e);
  if (wait !== null) ctx.set('Retry-After', String(wait));
  if (wantsErrorPage(ctx, e.id)) return renderErrorPage(ctx, e.id, e.status, uid);
  if (e.status === 503) ctx.set('Retry-After', String(RETRY_AFTER_S));
  ctx.status = e.status;
  ctx.type = 'application/json';
  ctx.body = { message: e.id, uid, details: e.details };
}

/** An error as one line: its name, code and message, never its stack. */
function oneLine(err: Error | string): string {
  const text =
    typeof err === 'string'
      ? err
      : `${err.name}${(err as { code?: unknown }).code ? ` ${String((err as { code?: unknown }).code)}` : ''}: ${err.message}`;
  return text.replace(/\s*\n\s*/g, ' | ').slice(0, 1000);
}

/**
 * Maps the HTTP libraries' errors (body parser, Koa) to our ids; anything unknown becomes internal_error. The
 * database and the file store throw the catalogue's errors themselves (src/db/errors.ts, src/storage/errors.ts);
 * a full disk under the database (SQLITE_FULL, PostgreSQL's 53100) is recognised here too.
 */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as {
    status?: number;
    statusCode?: number;
    type?: string;
    code?: string;
    name?: string;
    expose?: boolean;
  };
  const status = e?.status ?? e?.statusCode;
  // The client hung up mid-body (Node's 'aborted'): its mistake, not the server's.
  if (isClientAbort(err)) return Errors.badRequestBody('body ended early');
  if (status === 413 || e?.type === 'entity.too.large') return Errors.requestBodyTooLarge();
  // A library's own 4xx for a body it refused keeps the library's status under our id (415: a content type
  // the body parser does not read). These are the only statuses not taken from the catalogue.
  if (status === 415) return new ServiceError(Errors.badRequestBody.id, status, ['content-type']);
  if (status === 400 && e?.expose !== false) return Errors.badRequestBody();
  if (typeof status === 'number' && status >= 400 && status < 500 && e?.expose) {
    return new ServiceError(Errors.badRequestBody.id, status);
  }
  return Errors.internalError();
}

/** Node's error for a request whose client went away before its body ended. */
function isClientAbort(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return !(err instanceof ServiceError) && e?.code === 'ECONNRESET' && e?.message === 'aborted';
}

/** Seconds a client is asked to wait after 503 database_unavailable or storage_unavailable. */
const RETRY_AFTER_S = 5;
