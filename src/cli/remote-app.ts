import type { Command } from 'commander';
import { CliIO, UsageError } from './io';
import { withApp } from './with-app';

const CONFIG = ['-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)'] as const;

/**
 * ferry remote-app add|rotate|list|remove: applications that sign their requests. The secret is shown once,
 * as the last line of stdout (or in --json), and never again.
 */
export function remoteAppCommand(program: Command, io: CliIO): void {
  const cmd = program.command('remote-app').description('manage remote applications');
  const printSecret = (o: { json?: boolean }, name: string, secret: string, admin: boolean) =>
    io.out(
      o.json
        ? JSON.stringify({ name, secret, admin })
        : `remote application ${name}${admin ? ' (admin)' : ''}, secret:\n${secret}`,
    );
  cmd
    .command('add <name>')
    .description('create a remote application and print its secret')
    .option('--admin', 'the application is an admin when it acts as itself')
    .option('--json', 'print {"name","secret","admin"}')
    .option(...CONFIG)
    .action((name: string, o) =>
      withApp(o, async (app) =>
        printSecret(o, name, await app.services.accounts.addRemoteApp(name, !!o.admin), !!o.admin),
      ),
    );
  cmd
    .command('rotate <name>')
    .description('give the application a new secret and print it')
    .option('--grace <seconds>', 'the old secret keeps working this long (default: it stops at once)', '0')
    .option('--json', 'print {"name","secret","admin"}')
    .option(...CONFIG)
    .action((name: string, o) =>
      withApp(o, async (app) => {
        if (!/^\d{1,9}$/.test(String(o.grace))) throw new UsageError('--grace: a number of seconds');
        const { secret, isAdmin } = await app.services.accounts.rotateRemoteApp(name, Number(o.grace));
        printSecret(o, name, secret, isAdmin);
      }),
    );
  cmd
    .command('list')
    .description('list remote applications (names and flags, never secrets)')
    .option('--json', 'print [{"name","admin","created","grace_until"}]')
    .option(...CONFIG)
    .action((o) =>
      withApp(o, async (app) => {
        const list = await app.services.accounts.listRemoteApps();
        if (o.json)
          io.out(
            JSON.stringify(
              list.map((a) => ({ name: a.name, admin: a.admin, created: a.created, grace_until: a.graceUntil })),
            ),
          );
        else
          for (const a of list)
            io.out(
              [
                a.name,
                a.admin ? 'admin' : '',
                a.graceUntil ? `old secret valid until ${new Date(a.graceUntil * 1000).toISOString()}` : '',
              ]
                .filter(Boolean)
                .join('\t'),
            );
      }),
    );
  cmd
    .command('remove <name>')
    .description('remove a remote application; its secret stops working at once')
    .option(...CONFIG)
    .action((name: string, o) =>
      withApp(o, async (app) => {
        await app.services.accounts.removeRemoteApp(name);
        io.out(`remote application ${name} removed`);
      }),
    );
}
