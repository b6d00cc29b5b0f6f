import type { Command } from 'commander';
import { CliIO, UsageError } from './io';
import { configFrom } from './config-option';
import { redactDatabaseUrl } from '../config/database-url';

const POSTGRES_URL = /^postgres(ql)?:\/\/[^\s/]+\/[^\s/?#]+(\?\S*)?$/;

/**
 * ferry db migrate: the schema brought up to date without serving (a package's upgrade runs it before the
 * service starts again, docs/deploying.md).
 *
 * ferry db copy --to <postgres url>: the move from one box to many. Copies this data directory's SQLite
 * metadata (a consistent snapshot, taken while serve may run) into an empty PostgreSQL database and prints
 * the rows copied per table; then `database_url` (or FERRY_DATABASE_URL) switches the instance over.
 */
export function dbCommand(program: Command, io: CliIO): void {
  const db = program.command('db').description('database tools');
  db.command('migrate')
    .description("bring the database to this version's schema and exit, serving nothing (serve also does it at start)")
    .option('--json', 'print {"where", "from", "to"}')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .action(async (o: { json?: boolean; config?: string }) => {
      const { config } = configFrom(o);
      const { migrateDatabase } = await import('../db/migrate');
      const r = await migrateDatabase({ dataDir: config.data_dir, url: config.database_url });
      if (o.json) io.out(JSON.stringify(r));
      else if (r.from === r.to) io.out(`database ${r.where}: schema version ${r.to}, up to date`);
      else
        io.out(
          r.from === 0
            ? `database ${r.where}: created at schema version ${r.to}`
            : `database ${r.where}: migrated from schema version ${r.from} to ${r.to}`,
        );
    });
  db.command('copy')
    .description('copy the SQLite metadata of this data directory into an empty PostgreSQL database')
    .requiredOption('--to <url>', 'postgres://user:password@host:port/database (an empty database)')
    .option('--json', 'print {"to", "tables": {"<table>": rows}}')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .action(async (o: { to: string; json?: boolean; config?: string }) => {
      if (!POSTGRES_URL.test(o.to)) throw new UsageError('--to: a postgres://user:password@host:port/database URL');
      const { config } = configFrom(o);
      if (config.database_url)
        throw new UsageError(
          `this instance already keeps its metadata in ${redactDatabaseUrl(config.database_url)}; db copy reads the SQLite file of a data directory`,
        );
      const { copySqliteToPostgres, CopyRefused } = await import('../db/copy');
      let report;
      try {
        report = await copySqliteToPostgres(config.data_dir, o.to);
      } catch (e) {
        if (e instanceof CopyRefused) throw new UsageError(e.message);
        throw e;
      }
      const to = redactDatabaseUrl(o.to);
      if (o.json) {
        io.out(JSON.stringify({ to, tables: report.tables }));
        return;
      }
      for (const [table, n] of Object.entries(report.tables)) io.out(`${table}\t${n}`);
      const total = Object.values(report.tables).reduce((a, b) => a + b, 0);
      io.out(
        `copied ${total} rows into ${to}; the SQLite file is unchanged. To switch over, stop ferry, set database_url (or FERRY_DATABASE_URL) to this URL, and start it again.`,
      );
    });
}
