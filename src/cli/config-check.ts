import type { Command } from 'commander';
import type { CliIO } from './io';
import { UsageError } from './io';
import { ConfigError } from '../config/validate';
import { configFrom } from './config-option';
import { redactDatabaseUrl } from '../config/database-url';
import type { OptionName, SpLdap, SpOidc } from '../config/defaults';

/** An identity provider's keys `config check --json` shows as "(set)", never as their value. */
const SECRETS = ['client_secret', 'bind_password'] as const satisfies readonly (keyof SpOidc | keyof SpLdap)[];

export function configCommand(program: Command, io: CliIO): void {
  const config = program.command('config').description('configuration tools');
  config
    .command('check')
    .description('validate the configuration and print every problem')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .option('--json', 'print the effective configuration as JSON')
    .action((opts: { config?: string; json?: boolean }) => {
      try {
        const { config: c, source } = configFrom(opts);
        // The database password (in the file or FERRY_DATABASE_URL) is never printed.
        // Nor is an identity provider's client secret or bind password.
        const hide = (e: object) =>
          Object.fromEntries(
            Object.entries(e).map(([k, v]) => [k, (SECRETS as readonly string[]).includes(k) && v ? '(set)' : v]),
          );
        const sp = Array.isArray(c.auth.sp) ? c.auth.sp.map(hide) : hide(c.auth.sp);
        const shown: Record<OptionName, unknown> = {
          ...c,
          database_url: c.database_url && redactDatabaseUrl(c.database_url),
          auth: { ...c.auth, sp },
        };
        if (opts.json) io.out(JSON.stringify(shown, null, 2));
        else
          io.out(
            `config ok: ${source ?? 'built-in defaults'}; metadata in ${shown.database_url ?? `SQLite under ${c.data_dir}`}`,
          );
      } catch (e) {
        if (e instanceof ConfigError) throw new UsageError(e.message);
        throw e;
      }
    });
}
