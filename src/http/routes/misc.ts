import { Api } from '../api';
import { publicAccess } from '../access';
import { normaliseLang, translations } from '../../i18n';
import { isRemote } from '../../auth/principal';
import type { FerryContext } from '../state';
import { requestLang } from '../request-lang';

/** GET /info, /echo and /lang: instance facts, a request mirror for client debugging, translations. */
export function miscRoutes(api: Api): void {
  api.get('/info', publicAccess, (ctx) => {
    const config = ctx.state.services.settings.get();
    const info: Record<string, unknown> = { url: config.base_url };
    for (const key of config.disclose) {
      if (key in config) info[key] = (config as unknown as Record<string, unknown>)[key];
    }
    info.version = ctx.state.services.version;
    return info;
  });

  const echo = (ctx: FerryContext) => {
    const p = ctx.state.principal;
    const rest = ctx.params.rest;
    const args = (Array.isArray(rest) ? rest : typeof rest === 'string' ? rest.split('/') : []).filter((s) => s !== '');
    let user: string | null = null;
    let attr: Record<string, unknown> = {};
    if (p.type === 'user') {
      user = p.user.id;
      attr = { uid: p.user.id, email: p.user.emails, ...(p.attributes ?? {}) };
      if (p.application) attr.remote_application = p.application;
    } else if (p.type === 'guest') {
      attr = { guest_id: p.guest.id, email: [p.guest.email] };
    } else if (p.type === 'application') {
      attr = { remote_application: p.application };
    }
    return {
      args,
      request: ctx.request.body ?? null,
      user,
      auth: { remote: isRemote(p), type: p.type === 'anonymous' ? null : p.type, attr },
    };
  };
  for (const path of ['/echo', '/echo/*rest']) {
    api.get(path, publicAccess, echo);
    api.post(path, publicAccess, echo);
    api.put(path, publicAccess, echo);
  }

  api.get('/lang', publicAccess, async (ctx) => {
    const def = ctx.state.services.settings.get().default_lang;
    const asked = typeof ctx.query.lang === 'string' ? ctx.query.lang : null;
    return translations(normaliseLang(asked) ?? (await requestLang(ctx)), def);
  });
}
