import { Api, Reply } from '../api';
import { filesenderConfigScript } from '../presenters/filesender-config';
import { publicAccess } from '../access';
import { normaliseLang, translations } from '../../i18n';
import { isRemote } from '../../auth/principal';
import type { FerryContext } from '../state';
import { requestLang } from '../request-lang';
import { z } from 'zod';
import { input } from '../input';

/** /echo/<args…>: the path after /echo, one argument per segment. */
const echoParams = z.object({
  rest: z.union([z.string().transform((v) => v.split('/')), z.array(z.string())]).optional(),
});
type EchoInput = { params: z.output<typeof echoParams>; body?: unknown };

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

  const echo = (ctx: FerryContext, { params, body }: EchoInput) => {
    const p = ctx.state.principal;
    const args = (params.rest ?? []).filter((s) => s !== '');
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
      request: body ?? null,
      user,
      auth: { remote: isRemote(p), type: p.type === 'anonymous' ? null : p.type, attr },
    };
  };
  for (const path of ['/echo', '/echo/*rest']) {
    // The request mirrored: any JSON or form body.
    api.get(path, publicAccess, input({ params: echoParams }), echo);
    api.post(path, publicAccess, input({ params: echoParams, body: z.unknown() }), echo);
    api.put(path, publicAccess, input({ params: echoParams, body: z.unknown() }), echo);
  }

  // A language not one string is none asked for.
  const langQuery = z.object({ lang: z.string().optional().catch(undefined) });
  api.get('/lang', publicAccess, input({ query: langQuery }), async (ctx, { query }) => {
    const def = ctx.state.services.settings.get().default_lang;
    return translations(normaliseLang(query.lang ?? null) ?? (await requestLang(ctx)), def);
  });
}
