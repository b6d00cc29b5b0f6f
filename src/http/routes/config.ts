import { Api } from '../api';
import { admin } from '../access';
import { Errors } from '../../domain/errors';
import { RUNTIME_KEYS } from '../../config/defaults';
import { DISCLOSABLE } from '../../config/validate';
import { anyObject, input } from '../input';

/**
 * PUT /config (admin): overrides of the runtime-safe keys (docs/architecture.md, Configuration), validated like the config file,
 * persisted in the database and effective at once. GET /config (an extension) shows their effective values, and the antivirus settings.
 */
/** The keys and their values are the config's to check (settings.update validates them like the file). */
export const configUpdateInput = input({
  body: anyObject.refine((b) => Object.keys(b).length > 0, { error: Errors.restMissingParameter.id, path: ['body'] }),
});

export function configRoutes(api: Api): void {
  api.get('/config', admin, async (ctx) => {
    const settings = ctx.state.services.settings;
    const cfg = settings.get();
    const file = settings.fromFile();
    const overridden = Object.keys(await settings.overrides());
    // antivirus is shown (docs/sharing.md, Virus scanning) but set in the config file only: PUT refuses it.
    return {
      ...Object.fromEntries(RUNTIME_KEYS.map((k) => [k, cfg[k]])),
      antivirus: cfg.antivirus,
      // Extensions for the admin's settings page (docs/web-pages.md, Administration → Settings): which runtime
      // keys PUT /config changed, the config file's value of each, what `disclose` may name, and settings only
      // the config file sets, shown read-only (none of them a secret: no URL, password or path).
      overridden,
      config_file: Object.fromEntries(RUNTIME_KEYS.map((k) => [k, file[k]])),
      disclosable: DISCLOSABLE,
      file_only: {
        upload_chunk_size: cfg.upload_chunk_size,
        max_concurrent_chunk_uploads: cfg.max_concurrent_chunk_uploads,
        default_lang: cfg.default_lang,
        auditlog_enabled: cfg.auditlog_enabled,
        auditlog_lifetime_days: cfg.auditlog_lifetime_days,
        purge_interval_s: cfg.purge_interval_s,
        encryption_enabled: cfg.encryption_enabled,
        encryption_mandatory: cfg.encryption_mandatory,
        encryption_min_password_length: cfg.encryption_min_password_length,
        'mail.from': cfg.mail.from,
        'storage.type': cfg.storage.type,
        database: cfg.database_url ? 'postgresql' : 'sqlite',
      },
    };
  });
  api.put('/config', admin, configUpdateInput, async (ctx, { body: b }) => {
    await ctx.state.services.settings.update(b);
    return true;
  });
}
