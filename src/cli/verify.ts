import type { Command } from 'commander';
import { CheckFailed, type CliIO } from './io';
import { withApp } from './with-app';
import type { VerifyProgress } from '../domain/verify';

const GiB = 1024 ** 3;
const gib = (n: number) => (n / GiB).toFixed(2);

/**
 * ferry verify [--json]: reads every stored file (filesystem or S3) and compares it with the SHA-256 recorded at
 * completion; progress on standard error, one line per problem. Exit code 1 when a file does not match or
 * cannot be read (as `sha256sum -c`), 0 when all match. Safe while serve runs: it only reads.
 */
export function verifyCommand(program: Command, io: CliIO): void {
  program
    .command('verify')
    .description('check every stored file against its recorded SHA-256 (reads only; exit 1 when one differs)')
    .option('--json', 'print the report as JSON')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .action((o: { json?: boolean; config?: string }) =>
      withApp(o, async (app) => {
        let shown = 0;
        const progress = (p: VerifyProgress) => {
          const now = Date.now();
          // At most one line a second, and the last one.
          if (p.files < p.totalFiles && p.files > 0 && now - shown < 1000) return;
          shown = now;
          const line = `verify: ${p.files}/${p.totalFiles} files, ${gib(p.bytes)} of ${gib(p.totalBytes)} GiB`;
          if (io.tty) io.tty.write(`\r${line}${p.files === p.totalFiles ? '\n' : ''}`);
          else io.err(line);
        };
        const report = await app.services.verifyStoredFiles(progress);
        if (o.json) io.out(JSON.stringify(report));
        else {
          for (const p of report.problems)
            io.out(`${p.problem}: transfer ${p.transferId} file ${p.fileId} (${p.uid}): ${p.detail}`);
          io.out(
            `verify: ${report.files} files, ${gib(report.bytes)} GiB checked, ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`,
          );
        }
        if (report.problems.length)
          throw new CheckFailed(
            `${report.problems.length} stored file${report.problems.length === 1 ? '' : 's'} not as recorded`,
          );
      }),
    );
}
