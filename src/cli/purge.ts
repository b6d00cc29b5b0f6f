import type { Command } from 'commander';
import { CliIO, UsageError } from './io';
import { withApp } from './with-app';
import { formatReport } from '../domain/purge';

/** ferry purge [--dry-run] [--now <unix-seconds>] [--json]: for cron; safe while serve runs. */
export function purgeCommand(program: Command, io: CliIO): void {
  program
    .command('purge')
    .description('remove what has expired (transfers, guests, abandoned uploads, old records, orphan files)')
    .option('--dry-run', 'report what would be removed, change nothing')
    .option('--now <unix-seconds>', 'evaluate expiry as of this instant')
    .option('--json', 'print the report as JSON')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .action((o: { dryRun?: boolean; now?: string; json?: boolean; config?: string }) =>
      withApp(o, async (app) => {
        const now = o.now === undefined ? undefined : Number(o.now);
        if (now !== undefined && (!Number.isSafeInteger(now) || now < 0))
          throw new UsageError('--now: a UNIX time in seconds');
        // One purge at a time across processes and nodes: a lock in the database (advisory on PostgreSQL).
        const report = await app.services.purge.runExclusive({ now, dryRun: o.dryRun });
        if (!report) {
          io.out(
            o.json
              ? JSON.stringify({ skipped: 'another purge is running' })
              : 'purge: another purge is running; nothing done',
          );
          return;
        }
        await app.services.mailQueue.flush();
        io.out(o.json ? JSON.stringify(report) : formatReport(report));
      }),
    );
}
