import fs from 'node:fs';
import type { Command } from 'commander';
import { type CliIO, UsageError } from './io';

/**
 * ferry login '<remote_config>' (or `-`: read it from standard input, keeping it out of the shell history):
 * checks the string against the server, then keeps it in ~/.config/ferry/client.json (0600) for send.
 * ferry logout forgets it.
 */
export function loginCommand(program: Command, io: CliIO): void {
  program
    .command('login')
    .description(
      'keep the API access string of your profile page for ferry send (in ~/.config/ferry/client.json, mode 0600)',
    )
    .argument(
      '[remote_config]',
      "the string from the profile page, <url>|<user>|<secret>; '-' or none: read it (or a FileSender filesender.py.ini's text) from standard input",
    )
    .option(
      '--ini <file>',
      "FileSender's filesender.py.ini (from your profile page there, e.g. ~/.filesender/filesender.py.ini)",
    )
    .option('--no-check', 'save without asking the server whether the string works')
    .option('--json', 'print the result as JSON')
    .action(async (given: string | undefined, o: { check: boolean; json?: boolean; ini?: string }) => {
      const { parseFileSenderIni, parseLoginText, saveCredentials } = await import('../client/credentials');
      let creds;
      if (o.ini !== undefined) {
        if (given !== undefined) throw new UsageError('give either --ini <file> or the string, not both');
        const { ClientError } = await import('../client/errors');
        let text: string;
        try {
          text = fs.readFileSync(o.ini, 'utf8');
        } catch (e) {
          throw new ClientError(`cannot read ${o.ini}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
        }
        creds = parseFileSenderIni(text);
      } else {
        creds = parseLoginText(given === undefined || given === '-' ? await io.readStdin() : given);
      }
      if (o.check) {
        const { checkLogin } = await import('../client/servers/open');
        await checkLogin(creds, { retry: { retries: 2, baseDelayMs: 1000, maxDelayMs: 4000 } });
      }
      const file = saveCredentials(creds);
      io.out(
        o.json
          ? JSON.stringify({ url: creds.url, user: creds.user, file })
          : `logged in to ${creds.url} as ${creds.user} (kept in ${file})`,
      );
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
