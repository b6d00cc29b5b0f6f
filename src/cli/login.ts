import fs from 'node:fs';
import type { Command } from 'commander';
import type { CliIO } from './io';

/**
 * ferry login '<remote_config>' (or `-`: read it from standard input, keeping it out of the shell history):
 * checks the string against the server, then keeps it in ~/.config/ferry/client.json (0600) for send.
 * ferry logout forgets it.
 */
export function loginCommand(program: Command, io: CliIO): void {
  program
    .command('login')
    .description('keep the API access string of your profile page for ferry send (in ~/.config/ferry/client.json, mode 0600)')
    .argument('[remote_config]', "the string from the profile page, <url>|<user>|<secret>; '-' or none: read it from standard input")
    .option('--no-check', 'save without asking the server whether the string works')
    .option('--json', 'print the result as JSON')
    .action(async (given: string | undefined, o: { check: boolean; json?: boolean }) => {
      const { parseRemoteConfig, saveCredentials } = await import('../client/credentials');
      const text = given === undefined || given === '-' ? await io.readStdin() : given;
      const creds = parseRemoteConfig(text);
      if (o.check) {
        const { FerryApi } = await import('../client/http');
        const api = new FerryApi(creds, { retry: { retries: 2, baseDelayMs: 1000, maxDelayMs: 4000 } });
        try {
          await api.call('GET', '/user', { what: `signing in to ${creds.url} as ${creds.user}` });
        } finally {
          api.close();
        }
      }
      const file = saveCredentials(creds);
      io.out(o.json ? JSON.stringify({ url: creds.url, user: creds.user, file }) : `logged in to ${creds.url} as ${creds.user} (kept in ${file})`);
    });

  program
    .command('logout')
    .description('forget what ferry login kept')
    .action(async () => {
      const { clientConfigFile } = await import('../client/credentials');
      const file = clientConfigFile();
      const had = fs.existsSync(file);
      fs.rmSync(file, { force: true });
      io.out(had ? `removed ${file}` : 'not logged in');
    });
}
