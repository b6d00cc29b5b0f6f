import type { Command } from 'commander';
import type { CliIO } from './io';
import { UsageError } from './io';
import { ConfigError } from '../config/validate';
import { configFrom } from './config-option';
import { redactDatabaseUrl } from '../config/database-url';
import type { OptionName } from '../config/defaults';
import { providerStartupProblems, providersWithoutSecrets } from '../auth/providers/auth-sp';

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
        // What the start would stop on outside the file (an identity provider's key file that cannot be read).
        const startup = providerStartupProblems(c.auth.sp);
        if (startup.length) throw new ConfigError(startup, source ?? 'built-in defaults');
        // The database password (in the file or FERRY_DATABASE_URL) is never printed, nor an identity
        // provider's secrets (each kind names its own).
        const shown: Record<OptionName, unknown> = {
          ...c,
          database_url: c.database_url && redactDatabaseUrl(c.database_url),
          auth: { ...c.auth, sp: providersWithoutSecrets(c.auth.sp) },
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
