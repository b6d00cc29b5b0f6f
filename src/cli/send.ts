import type { Command } from 'commander';
import { CliIO, UsageError } from './io';

interface SendFlags {
  recipients?: string[];
  subject?: string;
  message?: string;
  days?: string;
  link?: boolean;
  downloadLimit?: string;
  guest?: string;
  from?: string;
  encrypt?: boolean;
  passwordStdin?: boolean;
  parallel: string;
  retries: string;
  url?: string;
  user?: string;
  json?: boolean;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** Addresses given as `-r a@x,b@y` (or repeated -r, or separated by ';' or spaces). */
export function splitAddresses(values: string[]): string[] {
  return values.flatMap((v) => v.split(/[,;\s]+/)).filter((a) => a !== '');
}

export function retriesOf(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 100) throw new UsageError('--retries: a whole number from 0 to 100');
  return n;
}

function positive(v: string | undefined, name: string, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${name}: a whole number from 1 to ${max}`);
  return n;
}

/**
 * ferry send <files/folders…> -r a@x,b@y [-s subject] [-m message] [--days N] [--link] [--json]; ferry send
 * --guest <email> invites a guest instead. Signed as the user of `ferry login`, $FERRY_* or --url/--user.
 */
export function sendCommand(program: Command, io: CliIO): void {
  program
    .command('send')
    .description('send files and folders to recipients (or --guest: invite someone to upload to you)')
    .argument('[paths...]', 'files and folders (folders keep their tree: photos/2026/a.jpg)')
    .option('-r, --recipients <emails>', 'recipients, separated by commas (repeatable)', collect)
    .option('-s, --subject <text>', 'subject of the mail')
    .option('-m, --message <text>', 'message of the mail')
    .option('--days <n>', "days until the transfer expires (default: the server's)")
    .option('--link', 'make a download link instead of mailing recipients (printed at the end)')
    .option('--download-limit <n>', 'how many times each file may be downloaded through each link (docs/sharing.md)')
    .option('--guest <email>', 'invite this person to upload files to you (no files)')
    .option(
      '--from <email>',
      'sender address (default: $FERRY_FROM, else the first address of your account; a FileSender server does not tell it, so there it is your user id when that is an address)',
    )
    .option(
      '--encrypt',
      'encrypt end to end: the password comes from $FERRY_PASSWORD or --password-stdin, or one is generated and shown once',
    )
    .option('--password-stdin', 'with --encrypt: read the password from standard input')
    .option('--parallel <n>', 'chunks in flight', '4')
    .option(
      '--retries <n>',
      'attempts after a failed request (network error, 5xx, 429), waiting 1 s, 2 s, 4 s… up to 30 s between',
      '8',
    )
    .option('--url <url>', 'server address (default: from ferry login or $FERRY_URL)')
    .option('--user <id>', 'user id (default: from ferry login or $FERRY_USER)')
    .option('--json', 'print the result as one JSON object, and no progress')
    .action(async (paths: string[], o: SendFlags) => {
      if (o.passwordStdin && !o.encrypt) throw new UsageError('--password-stdin goes with --encrypt');
      const days = positive(o.days, '--days', 3650);
      const downloadLimit = positive(o.downloadLimit, '--download-limit', 1_000_000);
      const parallel = positive(o.parallel, '--parallel', 32) ?? 4;
      const retries = retriesOf(o.retries);
      const { resolveCredentials } = await import('../client/credentials');
      const creds = resolveCredentials({ url: o.url, user: o.user });
      o.from ??= process.env.FERRY_FROM || undefined;
      const { humanBytes } = await import('../client/progress');
      if (o.guest !== undefined) {
        if (paths.length) throw new UsageError('--guest invites someone to upload to you; it takes no files');
        if (o.recipients?.length || o.link) throw new UsageError('--guest takes no -r or --link');
        const { inviteGuest } = await import('../client/guest');
        const g = await inviteGuest(
          creds,
          { email: o.guest, subject: o.subject, message: o.message, days, from: o.from },
          io,
        );
        io.out(
          o.json
            ? JSON.stringify(g)
            : `invited ${g.email} to upload files to you${g.expires ? ` until ${new Date(g.expires * 1000).toISOString().slice(0, 10)}` : ''}; the upload link was mailed to them${g.upload_url ? `: ${g.upload_url}` : ''}`,
        );
        return;
      }
      if (paths.length === 0) throw new UsageError('nothing to send: name files or folders (or use --guest <email>)');
      const { sendFiles } = await import('../client/send');
      let encrypt;
      if (o.encrypt) {
        const { choosePassword, givenPassword } = await import('../client/encryption');
        encrypt = choosePassword(await givenPassword(process.env, !!o.passwordStdin, () => io.readStdin()));
      }
      // Shown once, on standard error (away from what a script captures), as soon as the transfer exists; with
      // --json it is the result's `password` instead.
      const onGeneratedPassword = (p: string) => {
        if (!o.json)
          io.err(`generated password (give it to the recipients by another channel; it is not stored anywhere): ${p}`);
      };
      const stop = interruptNotice(io);
      try {
        const r = await sendFiles(
          creds,
          {
            paths,
            recipients: splitAddresses(o.recipients ?? []),
            subject: o.subject,
            message: o.message,
            days,
            link: !!o.link,
            downloadLimit,
            from: o.from,
            parallel,
            retries,
            json: !!o.json,
            encrypt,
            onGeneratedPassword,
          },
          io,
        );
        if (o.json) return io.out(JSON.stringify(r));
        const rate = r.seconds > 0 ? ` (${humanBytes(Math.round(r.bytes_sent / r.seconds))}/s)` : '';
        const size = humanBytes(r.files.reduce((n, f) => n + f.size, 0));
        const to = r.link ? 'as a link' : `to ${r.recipients.join(', ')}`;
        io.out(
          `transfer ${r.transfer_id} sent ${to}: ${r.files.length} file${r.files.length === 1 ? '' : 's'}, ${size} in ${r.seconds.toFixed(1)} s${rate}${r.resumed ? ', resumed' : ''}${r.encrypted ? ', encrypted end to end' : ''}`,
        );
        if (r.status === 'checking')
          io.out('being checked for viruses: the recipients are told (and the link works) once every file is clean');
        if (r.link) io.out(`link: ${r.link}`);
      } finally {
        stop();
      }
    });
}

/** On a terminal, Ctrl-C says how to carry on (the upload resumes where it stopped) instead of leaving the bar. */
export function interruptNotice(io: CliIO): () => void {
  if (!io.tty) return () => {};
  const onInt = () => {
    io.tty?.write('\n');
    io.err('interrupted: run the same command again to carry on where it stopped');
    process.exit(130);
  };
  process.once('SIGINT', onInt);
  return () => process.removeListener('SIGINT', onInt);
}
