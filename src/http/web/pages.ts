import { pageArgsOf } from './page-args';
import Router from '@koa/router';
import type { FerryContext, FerryState } from '../state';
import type { SafeHtml } from './html';
import { loadUserLang } from '../request-lang';

/**
 * Web pages live at {base_url}/?s=<page> (FileSender's URL shape, docs/architecture.md). Each page module registers a
 * renderer under its `s` value; GET / dispatches on it. A renderer returns the HTML (a full document) or
 * undefined when it wrote the response itself (redirects).
 */
export type PageRenderer = (ctx: FerryContext) => SafeHtml | undefined | Promise<SafeHtml | undefined>;

export class PageRegistry {
  private readonly pages = new Map<string, PageRenderer>();

  /** `name` is the value of ?s=; '' is the page shown when s is absent. */
  register(name: string, render: PageRenderer): this {
    this.pages.set(name, render);
    return this;
  }

  has(name: string): boolean {
    return this.pages.has(name);
  }

  router(): Router<FerryState> {
    const r = new Router<FerryState>();
    r.get('/', async (ctx) => {
      const name = pageArgsOf(ctx as FerryContext).s ?? '';
      const render = this.pages.get(name) ?? this.pages.get('');
      if (!render) return; // no page yet: fall through to the REST 404
      await loadUserLang(ctx as FerryContext);
      const out = await render(ctx as FerryContext);
      if (out === undefined) return;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = out.value;
    });
    return r;
  }
}
