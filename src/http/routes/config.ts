import { Api } from '../api';
import { admin } from '../access';
import { Errors } from '../../domain/errors';
import { RUNTIME_KEYS } from '../../config/defaults';
import { bodyObject } from '../actor';

/**
 * PUT /config (admin): overrides of the runtime-safe keys (docs/architecture.md, Configuration), validated like the config file,
 * persisted in the database and effective at once. GET /config (an extension) shows their effective values, and the antivirus settings.
 */
export function configRoutes(api: Api): void {
  api.get('/config', admin, (ctx) => {
    const cfg = ctx.state.services.settings.get();
    // antivirus is shown (docs/sharing.md, Virus scanning) but set in the config file only: PUT refuses it.
    return { ...Object.fromEntries(RUNTIME_KEYS.map((k) => [k, cfg[k]])), antivirus: cfg.antivirus };
  });
  api.put('/config', admin, async (ctx) => {
    const b = bodyObject(ctx);
    if (Object.keys(b).length === 0) throw Errors.restMissingParameter('body');
    await ctx.state.services.settings.update(b);
    return true;
  });
}
