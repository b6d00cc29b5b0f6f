import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { type CliIO, UsageError } from './io';
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
    .command('init')
    .description('create the first local account, "admin", when there is none (serve does it at its first start)')
    .option('--password-file <file>', 'write its password to this file (mode 0600) instead of printing it')
    .option(...CONFIG)
    .action((o: { passwordFile?: string; config?: string }) =>
      withApp(o, async (app) => {
        if (!app.services.identity.localAccounts) {
          io.out('no local accounts in this config (auth.sp): none created');
          return;
        }
        const file = o.passwordFile ? path.resolve(o.passwordFile) : null;
        // The file is opened before the account exists: a password made and then not written would be lost.
        const tmp = file && `${file}.${process.pid}.tmp`;
        let fd: number | null = null;
        if (tmp) {
          try {
            fd = fs.openSync(tmp, 'wx', 0o600);
          } catch (e) {
            throw new UsageError(`--password-file: cannot write in ${path.dirname(tmp)} (${(e as Error).message})`);
          }
        }
        try {
          const password = await app.services.accounts.ensureInitialAdmin();
          if (!password) io.out('a local account exists already: none created');
          else if (fd === null || !file || !tmp)
            io.out(`created the first account: user "admin", password ${password} (shown once)`);
          else {
            fs.writeSync(fd, `${password}\n`);
            fs.fsyncSync(fd);
            fs.closeSync(fd);
            fd = null;
            fs.renameSync(tmp, file);
            io.out(
              `created the first account: user "admin"; its password is in ${file} (mode 0600, shown nowhere else)`,
            );
          }
        } finally {
          if (fd !== null) fs.closeSync(fd);
          if (tmp) fs.rmSync(tmp, { force: true });
        }
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
