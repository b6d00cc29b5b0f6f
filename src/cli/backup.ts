import type { Command } from 'commander';
import path from 'node:path';
import { CliIO, UsageError } from './io';
import { configFrom } from './config-option';
import { redactDatabaseUrl } from '../config/database-url';
import { filesOutsideDataDir } from '../config/stores';

/**
 * ferry backup <dir> [--files] and ferry restore <dir>: parse and report only; the work is in src/backup.
 * On PostgreSQL the metadata is the database server's to back up (pg_dump), so both commands say how instead.
 */
export function backupCommand(program: Command, io: CliIO): void {
  program
    .command('backup')
    .description(
      'snapshot the metadata (and with --files the stored files) into a new directory; safe while serve runs',
    )
    .argument('<dir>', 'a new or empty directory')
    .option('--files', 'also copy the stored files, after the metadata, and check them against it')
    .option('--json', 'print the manifest as JSON')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .action(async (dir: string, o: { files?: boolean; json?: boolean; config?: string }) => {
      const { config } = configFrom(o);
      if (config.database_url) throw new UsageError(pgDumpGuidance(config.database_url, dir));
      // The file data is not under data_dir: copying nothing would pass for a backup of the files.
      const elsewhere = filesOutsideDataDir(config.storage);
      if (o.files && elsewhere) {
        throw new UsageError(
          `the file data is ${elsewhere}: back it up with the store's own tools (versioning, replication), and the metadata with ferry backup without --files`,
        );
      }
      const { backupSqlite, BackupRefused } = await import('../backup/backup');
      const report = await refusedAsUsage(BackupRefused, () =>
        backupSqlite(config.data_dir, path.resolve(dir), { files: o.files }),
      );
      const m = report.manifest;
      if (o.json) return io.out(JSON.stringify(m));
      io.out(
        `backed up ${m.counts.transfers} transfers (${m.counts.available_transfers} available), ${m.counts.users} users` +
          (o.files
            ? `, ${m.counts.files_copied} complete files and ${m.counts.partial_files_copied} partial uploads (${m.counts.bytes_copied} bytes)`
            : ' (metadata only; add --files for the stored files)') +
          ` into ${report.dir} in ${report.ms} ms`,
      );
    });

  program
    .command('restore')
    .description(
      'restore a backup into the empty data directory of the config, checking every file against the manifest',
    )
    .argument('<dir>', 'a directory written by ferry backup')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .action(async (dir: string, o: { config?: string }) => {
      const { config } = configFrom(o);
      if (config.database_url)
        throw new UsageError(
          `this instance keeps its metadata in PostgreSQL (${redactDatabaseUrl(config.database_url)}): restore it with pg_restore, then copy the backup's files/ into ${path.join(config.data_dir, 'files')}`,
        );
      const { restoreSqlite, BackupRefused } = await import('../backup/backup');
      const m = await refusedAsUsage(BackupRefused, () => restoreSqlite(path.resolve(dir), config.data_dir));
      io.out(
        `restored the backup of ${m.created} (${m.counts.transfers} transfers, ${m.files.length} checked files) into ${config.data_dir}; start ferry serve on it`,
      );
    });
}

/** The one line a PostgreSQL instance gets: the metadata is dumped by pg_dump, the files copied as they are. */
export function pgDumpGuidance(url: string, dir: string): string {
  return `this instance keeps its metadata in PostgreSQL: back it up with pg_dump --format=custom --file=${path.join(dir, 'ferry.pgdump')} '${withoutPassword(url)}' (password from PGPASSWORD or ~/.pgpass), then copy the data dir's files/`;
}

function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return redactDatabaseUrl(url);
  }
}

async function refusedAsUsage<T>(refused: new (...a: never[]) => Error, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof refused) throw new UsageError(e.message);
    throw e;
  }
}
