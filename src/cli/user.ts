import type { Command } from 'commander';
import { CliIO, UsageError } from './io';
import { withApp } from './with-app';

const CONFIG = ['-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)'] as const;

/** A password is only ever read from standard input: never from the command line, where `ps` shows it. */
async function readPassword(io: CliIO): Promise<string> {
  const pw = (await io.readStdin()).replace(/\r?\n$/, '');
  if (!pw) throw new UsageError('no password on standard input');
  return pw;
}

/** ferry user add|passwd|list|remove|link|unlink: local accounts (service provider "local"), and links. */
export function userCommand(program: Command, io: CliIO): void {
  const cmd = program.command('user').description('manage local accounts');
  cmd
    .command('add <user_id>')
    .description('create a local account, or update its e-mail addresses (and password)')
    .requiredOption('--email <list>', 'e-mail address(es), comma separated')
    .option('--password-stdin', 'read the password from standard input')
    .option(...CONFIG)
    .action(async (id: string, o) => {
      const password = o.passwordStdin ? await readPassword(io) : null;
      const emails = String(o.email)
        .split(',')
        .map((e: string) => e.trim())
        .filter(Boolean);
      await withApp(o, (app) => app.services.accounts.addUser(id, emails, password));
      io.out(
        password === null
          ? `user ${id} saved (no password yet: ferry user passwd ${id} --password-stdin)`
          : `user ${id} saved`,
      );
    });
  cmd
    .command('passwd <user_id>')
    .description('set the password of a local account; its sessions end')
    .option('--password-stdin', 'read the password from standard input (the only way)')
    .option(...CONFIG)
    .action(async (id: string, o) => {
      const password = await readPassword(io);
      await withApp(o, (app) => app.services.accounts.setPassword(id, password));
      io.out(`password of ${id} changed; its sessions are closed`);
    });
  cmd
    .command('list')
    .description('list users (local accounts and those seen through other modes)')
    .option('--json', 'print [{"id","emails","local","admin","provider","links"}]')
    .option(...CONFIG)
    .action((o) =>
      withApp(o, async (app) => {
        const list = (await app.services.accounts.listUsers()).map((u) => ({
          id: u.id,
          emails: u.emails,
          local: u.local,
          admin: u.admin,
          provider: u.provider,
          links: u.links,
        }));
        if (o.json) io.out(JSON.stringify(list));
        else
          for (const u of list)
            io.out(
              [
                u.id,
                u.emails.join(','),
                u.local ? 'local' : '',
                u.admin ? 'admin' : '',
                u.provider && !u.local ? `provider=${u.provider}` : '',
                u.links.length ? `linked=${u.links.join(',')}` : '',
              ]
                .filter(Boolean)
                .join('\t'),
            );
      }),
    );
  // docs/single-sign-on.md, "User ids of several providers": an account belongs to the provider that made it.
  cmd
    .command('link <user_id> <provider>')
    .description('let another identity provider (its auth.sp id) sign in to this account: the same person in both')
    .option(...CONFIG)
    .action((id: string, provider: string, o) =>
      withApp(o, async (app) => {
        const added = await app.services.signIn.link(id, provider);
        io.out(added ? `${provider} may now sign in to ${id}` : `${provider} could already sign in to ${id}`);
      }),
    );
  cmd
    .command('unlink <user_id> <provider>')
    .description('undo ferry user link (sessions already open stay until they end)')
    .option(...CONFIG)
    .action((id: string, provider: string, o) =>
      withApp(o, async (app) => {
        const removed = await app.services.signIn.unlink(id, provider);
        io.out(removed ? `${provider} no longer signs in to ${id}` : `${id} was not linked to ${provider}`);
      }),
    );
  cmd
    .command('remove <user_id>')
    .description('remove a local account (its transfers stay until they expire)')
    .option(...CONFIG)
    .action((id: string, o) =>
      withApp(o, async (app) => {
        await app.services.accounts.removeUser(id);
        io.out(`local account ${id} removed; its sessions are closed`);
      }),
    );
}
