import type { Command } from 'commander';
import type { CliIO } from './io';
import { interruptNotice, retriesOf } from './send';

/** ferry get '<download link>' [-o dir] [--json]: saves the link's files, resuming and checking each one. */
export function getCommand(program: Command, io: CliIO): void {
  program
    .command('get')
    .description('download the files of a download link (resumes, checks each SHA-256, decrypts an encrypted transfer)')
    .argument('<link>', 'the download link from the mail or the sender')
    .option('-o, --output <dir>', 'folder to save into (created if needed)', '.')
    .option('--retries <n>', 'attempts after a failed request (network error, 5xx, 429)', '8')
    .option('--password-stdin', 'an encrypted transfer: read its password from standard input (else $FERRY_PASSWORD)')
    .option('--json', 'print the result as one JSON object, and no progress')
    .action(async (link: string, o: { output: string; retries: string; json?: boolean; passwordStdin?: boolean }) => {
      const { getFiles } = await import('../client/download');
      const { givenPassword } = await import('../client/encryption');
      // Read only when the transfer turns out to be encrypted (a plain download never waits on standard input).
      const password = () => givenPassword(process.env, !!o.passwordStdin, () => io.readStdin());
      const stop = interruptNotice(io);
      try {
        const { resolveCredentials } = await import('../client/credentials');
        const credentials = () => {
          try {
            return resolveCredentials({});
          } catch {
            return null;
          }
        };
        const r = await getFiles(
          { link, outDir: o.output, json: !!o.json, retries: retriesOf(o.retries), password, credentials },
          io,
        );
        const decrypted = r.files.some((f) => f.verified.startsWith('aes-gcm'))
          ? ', decrypted (every chunk checked by its AES-GCM tag)'
          : '';
        io.out(
          o.json
            ? JSON.stringify(r)
            : `${r.files.length} file${r.files.length === 1 ? '' : 's'} from ${r.from} in ${o.output}${decrypted}`,
        );
      } finally {
        stop();
      }
    });
}
