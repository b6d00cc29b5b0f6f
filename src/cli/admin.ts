import type { Command } from 'commander';
import type { CliIO } from './io';
import { withApp } from './with-app';

const CONFIG = ['-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)'] as const;

/**
 * ferry admin add|remove|list: admins kept in the database, on top of the config's `admin` list. Read on
 * every request, so a change is effective at once in a running server.
 */
export function adminCommand(program: Command, io: CliIO): void {
  const cmd = program.command('admin').description('manage administrators');
  cmd
    .command('add <user_id>')
    .description('make a user an admin (the user need not have signed in yet)')
    .option(...CONFIG)
    .action((id: string, o) =>
      withApp(o, async (app) => {
        await app.services.users.addAdmin(id);
        io.out(`${id} is an admin`);
      }),
    );
  cmd
    .command('remove <user_id>')
    .description('remove an admin added with "admin add" (those of the config file stay)')
    .option(...CONFIG)
    .action((id: string, o) =>
      withApp(o, async (app) => {
        await app.services.users.removeAdmin(id);
        const stillByConfig = app.services.settings.get().admin.includes(id);
        io.out(
          stillByConfig
            ? `${id} removed from the database, but stays an admin through the config file`
            : `${id} is no longer an admin`,
        );
      }),
    );
  cmd
    .command('list')
    .description('list admins (database and config file)')
    .option('--json', 'print {"database": [...], "config": [...]}')
    .option(...CONFIG)
    .action((o) =>
      withApp(o, async (app) => {
        const { database, config } = await app.services.users.admins();
        if (o.json) io.out(JSON.stringify({ database, config }));
        else
          for (const id of [...new Set([...config, ...database])].sort())
            io.out(`${id}${config.includes(id) ? '\t(config)' : ''}`);
      }),
    );
}
