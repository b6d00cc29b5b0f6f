import Router from '@koa/router';
import type { AccessLevel, Step } from './access';
import { Input, type Parsed, type Schemas } from './input';
import type { FerryContext, FerryState } from './state';

/**
 * A handler returns the JSON to send; a Reply lets it set a status and headers as well. It gets its route's
 * parsed input (./input.ts) and reads nothing of the request's parameters, query or body itself.
 */
export type Handler<I = undefined> = (ctx: FerryContext, input: I) => unknown | Promise<unknown>;

/** What the router knows of a route: enough for tests to check every route's access level and input. */
export interface RouteInfo {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  level: AccessLevel['level'];
  input: Schemas | null;
}

export class Reply {
  constructor(
    readonly body: unknown,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** 201 Created with a Location header, as the spec asks of every endpoint that creates a resource. */
export function created(ctx: FerryContext, body: unknown, path: string): Reply {
  const base = ctx.state.services.settings.get().base_url;
  return new Reply(body, 201, { Location: `${base}${path}` });
}

/**
 * The REST router. Each route reads as a chain: access level, then its input's schemas, then validation steps,
 * then the handler, e.g. `api.put('/transfer/:id', owner(loadTransfer), input({ params, body }), handler)`.
 * The access argument is mandatory, so no route can be declared without one; the input is parsed after the
 * access check, so a caller without access learns nothing from a malformed request.
 */
export class Api {
  readonly router = new Router<FerryState>();
  readonly routes: RouteInfo[] = [];

  readonly get = this.declare('GET');
  readonly post = this.declare('POST');
  readonly put = this.declare('PUT');
  readonly delete = this.declare('DELETE');

  private declare(method: RouteInfo['method']): Declare {
    return (path: string, access: AccessLevel, ...chain: unknown[]) => this.add(method, path, access, chain);
  }

  private add(method: RouteInfo['method'], path: string, access: AccessLevel, chain: unknown[]): this {
    const declared = chain.find((l) => l instanceof Input) ?? null;
    const handler = chain[chain.length - 1] as Handler<unknown>;
    const steps = chain.slice(0, -1).map(
      (l): Step =>
        l instanceof Input
          ? (ctx, next) => {
              ctx.state.input = l.parse(ctx);
              return next();
            }
          : (l as Step),
    );
    this.routes.push({ method, path, level: access.level, input: declared?.schemas ?? null });
    const final: Step = async (ctx) => {
      const out = await handler(ctx, ctx.state.input);
      if (out === undefined) return; // the handler wrote the response itself (streams)
      if (out instanceof Reply) {
        ctx.status = out.status;
        for (const [k, v] of Object.entries(out.headers)) ctx.set(k, v);
        ctx.body = out.body;
      } else {
        ctx.body = out;
      }
      // Koa sends `true`/`false` as text; the spec wants JSON booleans.
      if (ctx.body === true || ctx.body === false || ctx.body === null) {
        ctx.type = 'application/json';
        ctx.body = JSON.stringify(ctx.body);
      }
    };
    const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    (this.router as unknown as Record<string, (p: string, ...m: Step[]) => void>)[verb](
      path,
      access.check,
      ...steps,
      final,
    );
    return this;
  }
}

/** Validation steps, then the handler. */
type Chain<I> = [...Step[], Handler<I>];

/** How a route is declared: path, access level, then its input (if it takes any), steps and handler. */
interface Declare {
  <S extends Schemas>(path: string, access: AccessLevel, input: Input<S>, ...chain: Chain<Parsed<S>>): Api;
  /**
   * A step before the input's parsing: around the rest of the chain (a download's errors shown as a page), or
   * ahead of it (a sign-in form's provider, whose 404 comes before the body's 400).
   */
  <S extends Schemas>(
    path: string,
    access: AccessLevel,
    before: Step,
    input: Input<S>,
    ...chain: Chain<Parsed<S>>
  ): Api;
  (path: string, access: AccessLevel, ...chain: Chain<undefined>): Api;
}
