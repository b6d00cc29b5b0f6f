import { Api, Reply } from '../api';
import { filesenderConfigScript } from '../presenters/filesender-config';
import { publicAccess } from '../access';
import { normaliseLang, translations } from '../../i18n';
import { isRemote } from '../../auth/principal';
import type { FerryContext } from '../state';
import { requestLang } from '../request-lang';

/** GET /healthz, /info, /echo and /lang: instance facts, a request mirror for client debugging, translations. */
export function miscRoutes(api: Api): void {
  // Liveness for load balancers, systemd and monitoring: the process answers HTTP. It touches nothing else,
  // so a slow disk or database never makes a balancer take a working server out.
  api.get('/healthz', publicAccess, () => ({ status: 'ok' }));

  api.get('/info', publicAccess, (ctx) => {
    const config = ctx.state.services.settings.get();
    const info: Record<string, unknown> = { url: config.base_url };
    for (const key of config.disclose) {
      if (key in config) info[key] = config[key];
    }
    info.version = ctx.state.services.version;
    // Where a person signs in (FileSender's logon_url): the provider's own start when it is the only way in
    // through ferry's pages and a redirect, else the login page listing them.
    const signIn = ctx.state.services.identity.list.filter((p) => p.style !== 'proxy');
    info.logon_url = `${config.base_url}/login${signIn.length === 1 && signIn[0].style === 'redirect' ? `/${signIn[0].id}` : ''}`;
    return info;
  });

  // FileSender's clients read their settings here: filesender.py asks for "{site}//filesender-config.js.php"
  // (its rest.php URL with "rest.php" cut off, plus "/"); the doubled slash is routed as one.
  api.get('/filesender-config.js.php', publicAccess, (ctx) => {
    const script = filesenderConfigScript(ctx.state.services.settings.get(), ctx.state.services.version);
    return new Reply(script, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
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
