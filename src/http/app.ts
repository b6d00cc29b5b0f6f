import Koa from 'koa';
import { koaBody } from 'koa-body';
import type Router from '@koa/router';
import { Errors } from '../domain/errors';
import type { Services } from '../services';
import { ANONYMOUS } from '../auth/principal';
import { Api, type RouteInfo } from './api';
import { errorMiddleware } from './middleware/errors';
import { jsonpMiddleware } from './middleware/jsonp';
import { securityHeaders } from './middleware/security-headers';
import { requestLog } from './middleware/request-log';
import { originFormTarget } from './middleware/request-target';
import { restPhpAlias } from './middleware/rest-prefix';
import { authenticate } from './middleware/authenticate';
import { rawBodyForSignatures } from './middleware/raw-body';
import { utf8Bodies, utf8Verdict } from './middleware/utf8-body';
import { miscRoutes } from './routes/misc';
import { isChunkUpload } from './routes/file';
import type { FerryState } from './state';
import type { PageRegistry } from './web/pages';

/** A group of REST routes; each issue's resource registers itself through one of these. */
export type RouteModule = (api: Api) => void;

/** Routers outside the REST API (web pages, downloads): tried before the REST 404. */
export type ExtraRouter = Router<FerryState>;

export interface HttpOptions {
  routes?: RouteModule[];
  /** Web pages at /?s=<name>. */
  pages?: PageRegistry;
  extraRouters?: ExtraRouter[];
  /** Largest JSON body accepted (bytes). */
  jsonLimit?: number;
  /** Runs first on every request and sees its final status (the metrics). */
  observe?: Koa.Middleware<FerryState>;
}

/** The HTTP app, and what its REST router holds (each route's access level and input, for tests to check). */
export type HttpApp = Koa<FerryState> & { readonly routes: readonly RouteInfo[] };

export function buildHttpApp(services: Services, opts: HttpOptions = {}): HttpApp {
  const app = new Koa<FerryState>();
  app.proxy = false;
  app.silent = true;

  const api = new Api();
  miscRoutes(api);
  for (const register of opts.routes ?? []) register(api);

  // First of all: every later reader of the path sees the origin form (src/http/middleware/request-target.ts).
  app.use(originFormTarget());
  if (opts.observe) app.use(opts.observe);
  app.use(async (ctx, next) => {
    ctx.state.services = services;
    ctx.state.principal = ANONYMOUS;
    await next();
    // A download writes its own body, after the middleware below has set every header.
    if (ctx.state.sendBody) await ctx.state.sendBody();
  });
  app.use(requestLog(services.log));
  app.use(errorMiddleware(services.log));
  app.use(securityHeaders());
  app.use(restPhpAlias());
  app.use(jsonpMiddleware(services.log));
  const parseBody = koaBody({
    json: true,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonLimit: opts.jsonLimit ?? 1024 * 1024,
    formLimit: 64 * 1024,
    includeUnparsed: true,
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
  }) as Koa.Middleware<FerryState>;
  app.use(utf8Bodies());
  // A chunk's bytes are data whatever its Content-Type says (curl sends form-urlencoded): streamed, never parsed.
  app.use((ctx, next) => (isChunkUpload(ctx) ? next() : parseBody(ctx, next)));
  app.use(utf8Verdict());
  app.use(rawBodyForSignatures());
  app.use(authenticate());
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body === undefined && ctx.status === 404) throw Errors.restEndpointNotFound(ctx.path);
  });
  if (opts.pages) app.use(opts.pages.router().routes());
  for (const r of opts.extraRouters ?? []) app.use(r.routes());
  app.use(api.router.routes());
  app.use(
    api.router.allowedMethods({
      throw: true,
      methodNotAllowed: () => Errors.restMethodNotAllowed(),
      notImplemented: () => Errors.restMethodNotAllowed(),
    }),
  );
  return Object.assign(app, { routes: api.routes });
}
