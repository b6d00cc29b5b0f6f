import type { Command } from 'commander';
import { CliIO, UsageError } from './io';
import { withApp } from './with-app';

const CONFIG = ['-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)'] as const;

async function readPassword(io: CliIO, fromStdin: boolean | undefined): Promise<string | null> {
  if (!fromStdin) return null;
  const pw = (await io.readStdin()).replace(/\r?\n$/, '');
  if (!pw) throw new UsageError('no password on standard input');
  return pw;
}

/** ferry admin add|remove|list: admins stored in the DB, on top of the config's `admin` list. */
export function adminCommand(program: Command, io: CliIO): void {
  const cmd = program.command('admin').description('manage administrators');
  cmd.command('add <user_id>').option(...CONFIG).action((id: string, o) =>
    withApp(o, (app) => {
      app.services.usersRepo.addAdmin(id, app.services.clock());
      io.out(`${id} is an admin`);
    }),
  );
  cmd.command('remove <user_id>').option(...CONFIG).action((id: string, o) =>
    withApp(o, (app) => {
      if (!app.services.usersRepo.removeAdmin(id)) throw new UsageError(`${id} is not an admin in the database`);
      io.out(`${id} is no longer an admin`);
    }),
  );
  cmd.command('list').option(...CONFIG).option('--json').action((o) =>
    withApp(o, (app) => {
      const db = app.services.usersRepo.listAdmins();
      const cfg = app.services.settings.get().admin;
      if (o.json) io.out(JSON.stringify({ database: db, config: cfg }));
      else for (const id of [...new Set([...cfg, ...db])]) io.out(`${id}${cfg.includes(id) ? ' (config)' : ''}`);
    }),
  );
}

/** ferry user add|passwd|list|remove: local accounts (service provider "local"). */
export function userCommand(program: Command, io: CliIO): void {
  const cmd = program.command('user').description('manage local accounts');
  cmd
    .command('add <user_id>')
    .requiredOption('--email <list>', 'e-mail address(es), comma separated')
    .option('--password-stdin', 'read the password from standard input')
    .option(...CONFIG)
    .action(async (id: string, o) => {
      const password = await readPassword(io, o.passwordStdin);
      await withApp(o, (app) => app.services.accounts.addUser(id, String(o.email).split(',').map((e: string) => e.trim()).filter(Boolean), password));
      io.out(`user ${id} saved`);
    });
  cmd
    .command('passwd <user_id>')
    .option('--password-stdin', 'read the password from standard input')
    .option(...CONFIG)
    .action(async (id: string, o) => {
      const password = await readPassword(io, true);
      await withApp(o, (app) => app.services.accounts.setPassword(id, password!));
      io.out(`password of ${id} changed; its sessions are closed`);
    });
  cmd.command('list').option(...CONFIG).option('--json').action((o) =>
    withApp(o, (app) => {
      const list = app.services.accounts.listUsers();
      if (o.json) io.out(JSON.stringify(list));
      else for (const u of list) io.out(`${u.id}\t${u.emails.join(',')}${u.local ? '\tlocal' : ''}${u.admin ? '\tadmin' : ''}`);
    }),
  );
  cmd.command('remove <user_id>').option(...CONFIG).action((id: string, o) =>
    withApp(o, (app) => {
      app.services.accounts.removeUser(id);
      io.out(`user ${id} removed`);
    }),
  );
}

/** ferry remote-app add|rotate|list|remove: applications that sign their requests. */
export function remoteAppCommand(program: Command, io: CliIO): void {
  const cmd = program.command('remote-app').description('manage remote applications');
  const printSecret = (o: { json?: boolean }, name: string, secret: string, admin: boolean) =>
    io.out(o.json ? JSON.stringify({ name, secret, admin }) : `remote application ${name}${admin ? ' (admin)' : ''}, secret:\n${secret}`);
  cmd.command('add <name>').option('--admin', 'the application is an admin').option('--json').option(...CONFIG).action((name: string, o) =>
    withApp(o, (app) => printSecret(o, name, app.services.accounts.addRemoteApp(name, !!o.admin), !!o.admin)),
  );
  cmd
    .command('rotate <name>')
    .option('--grace <seconds>', 'the old secret keeps working this long', '0')
    .option('--json')
    .option(...CONFIG)
    .action((name: string, o) =>
      withApp(o, (app) => {
        const grace = Number(o.grace);
        if (!Number.isInteger(grace) || grace < 0) throw new UsageError('--grace: a number of seconds');
        const secret = app.services.accounts.rotateRemoteApp(name, grace);
        const isAdmin = app.services.accounts.listRemoteApps().find((a) => a.name === name)?.is_admin === 1;
        printSecret(o, name, secret, isAdmin);
      }),
    );
  cmd.command('list').option('--json').option(...CONFIG).action((o) =>
    withApp(o, (app) => {
      const list = app.services.accounts.listRemoteApps().map((a) => ({ name: a.name, admin: a.is_admin === 1, created: a.created }));
      if (o.json) io.out(JSON.stringify(list));
      else for (const a of list) io.out(`${a.name}${a.admin ? '\tadmin' : ''}`);
    }),
  );
  cmd.command('remove <name>').option(...CONFIG).action((name: string, o) =>
    withApp(o, (app) => {
      app.services.accounts.removeRemoteApp(name);
      io.out(`remote application ${name} removed`);
    }),
  );
}
