import Router from '@koa/router';
import type { AccessLevel, Step } from './access';
import type { FerryContext, FerryState } from './state';

/** A handler returns the JSON to send; a Reply lets it set a status and headers as well. */
export type Handler = (ctx: FerryContext) => unknown | Promise<unknown>;

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
 * The REST router. Each route reads as a chain: access level, then validation steps, then the handler, e.g.
 * `api.get('/transfer/:id', owner(loadTransfer), handler)`. The access argument is mandatory, so no route
 * can be declared without one.
 */
export class Api {
  readonly router = new Router<FerryState>();

  get(path: string, access: AccessLevel, ...chain: [...Step[], Handler]) {
    return this.add('get', path, access, chain);
  }
  post(path: string, access: AccessLevel, ...chain: [...Step[], Handler]) {
    return this.add('post', path, access, chain);
  }
  put(path: string, access: AccessLevel, ...chain: [...Step[], Handler]) {
    return this.add('put', path, access, chain);
  }
  delete(path: string, access: AccessLevel, ...chain: [...Step[], Handler]) {
    return this.add('delete', path, access, chain);
  }

  private add(
    method: 'get' | 'post' | 'put' | 'delete',
    path: string,
    access: AccessLevel,
    chain: (Step | Handler)[],
  ): this {
    const handler = chain[chain.length - 1] as Handler;
    const steps = chain.slice(0, -1) as Step[];
    const final: Step = async (ctx) => {
      const out = await handler(ctx);
      if (out === undefined) return; // the handler wrote the response itself (streams)
      if (out instanceof Reply) {
        ctx.status = out.status;
        for (const [k, v] of Object.entries(out.headers)) ctx.set(k, v);
        ctx.body = out.body;
      } else {
        ctx.body = out;
      }
      // Koa sends `true`/`false` as text; the spec wants JSON booleans.
      if (typeof ctx.body === 'boolean' || ctx.body === null) {
        ctx.type = 'application/json';
        ctx.body = JSON.stringify(ctx.body);
      }
    };
    (this.router as unknown as Record<string, (p: string, ...m: Step[]) => void>)[method](
      path,
      access.check,
      ...steps,
      final,
    );
    return this;
  }
}
