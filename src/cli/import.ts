import fs from 'node:fs';
import type { Command } from 'commander';
import { type CliIO, UsageError } from './io';
import { configFrom } from './config-option';
import { withApp } from './with-app';
import {
  checkFileSenderSource,
  importFromFileSender,
  ImportRefused,
  type ImportProgress,
  type ImportReport,
} from '../domain/filesender-import';
import { type FileSenderSource, SourceRefused } from '../domain/ports/filesender-source';
import type { Repositories } from '../domain/ports';
import { openFileSenderSource } from '../db/filesender/filesender-source';
import { sqliteFile } from '../db/sqlite';

const MiB = 1024 * 1024;

interface ImportOpts {
  database: string;
  files: string;
  config?: string;
  dryRun?: boolean;
  merge?: boolean;
  admins?: string;
  timeZone: string;
  json?: boolean;
}

/**
 * ferry import filesender --database <url> --files <dir> [--dry-run] [--merge] [--admins uid,…] [--json]:
 * brings a FileSender 3.8 installation's users, open transfers and guests into the ferry the config names
 * (docs/moving-from-filesender.md). FileSender's database and files are only read.
 */
export function importCommand(program: Command, io: CliIO): void {
  const cmd = program.command('import').description('bring data over from another file-transfer service');
  cmd
    .command('filesender')
    .description("import a FileSender 3.8 site's users, open transfers, guests and API secrets (reads it only)")
    .requiredOption(
      '--database <url>',
      "FileSender's database: postgres://… (?host=/socket/dir for a Unix socket) or mysql://…",
    )
    .requiredOption('--files <dir>', "FileSender's storage_filesystem_path, where the files' bytes are")
    .option('--dry-run', 'report what would be imported, write nothing')
    .option('--merge', 'import into a ferry that already holds transfers or guests of its own')
    .option(
      '--admins <uids>',
      "user ids that FileSender's config names in `admin` (comma-separated): made ferry admins",
    )
    .option(
      '--time-zone <zone>',
      "PHP's time zone on the FileSender server (date.timezone), in which it wrote its dates",
      'UTC',
    )
    .option('--json', 'print the report as JSON')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .action((o: ImportOpts) => runImport(o, io));
}

async function runImport(o: ImportOpts, io: CliIO): Promise<void> {
  const opts = {
    dryRun: !!o.dryRun,
    merge: !!o.merge,
    admins: (o.admins ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  };
  let source: FileSenderSource;
  try {
    source = await openFileSenderSource(o.database, o.files, o.timeZone);
  } catch (e) {
    if (e instanceof SourceRefused) throw new UsageError(e.message);
    throw e;
  }
  const progress = progressLine(io);
  try {
    // A wrong or unknown schema is refused before ferry's data folder is opened (or made).
    await checkFileSenderSource(source);
    let report: ImportReport;
    const { config } = configFrom(o);
    if (opts.dryRun && config.database_url === null && !fs.existsSync(sqliteFile(config.data_dir))) {
      // A dry run makes no data directory: with none yet, nothing is imported and nothing is in the way.
      report = await importFromFileSender(
        {
          repos: emptyFerry(),
          uow: { run: () => Promise.reject(new Error('dry run')) },
          files: null as never,
          clock: () => Math.floor(Date.now() / 1000),
          pieceSize: () => 0,
        },
        source,
        opts,
      );
    } else {
      report = await withApp(o, (app) => app.services.importFromFileSender(source, opts, progress));
    }
    print(io, report, !!o.json);
  } catch (e) {
    if (e instanceof ImportRefused || e instanceof SourceRefused) throw new UsageError(e.message);
    throw e;
  } finally {
    await source.close().catch(() => {});
  }
}

function progressLine(io: CliIO): (p: ImportProgress) => void {
  let shown = 0;
  return (p) => {
    const now = Date.now();
    const last = p.files === p.totalFiles;
    if (!last && now - shown < 500) return;
    shown = now;
    const width = 30;
    const done = p.totalBytes ? Math.min(1, p.bytes / p.totalBytes) : 1;
    const bar = `${'#'.repeat(Math.round(done * width))}${'.'.repeat(width - Math.round(done * width))}`;
    const line = `import [${bar}] ${p.files}/${p.totalFiles} files, ${(p.bytes / MiB).toFixed(1)} of ${(p.totalBytes / MiB).toFixed(1)} MiB`;
    if (io.tty) io.tty.write(`\r${line}${last ? '\n' : ''}`);
    else io.err(line);
  };
}

function print(io: CliIO, r: ImportReport, json: boolean): void {
  if (json) {
    io.out(JSON.stringify(r));
    return;
  }
  const verb = r.dryRun ? 'would import' : 'imported';
  io.out(`from ${r.source}`);
  for (const u of r.unmapped) io.out(`not imported: ${u.what} ${u.id}: ${u.why}`);
  if (r.already.transfers || r.already.guests || r.already.files)
    io.out(
      `already imported: ${r.already.transfers} transfer(s), ${r.already.guests} guest(s), ${r.already.files} file(s)`,
    );
  io.out(
    `${verb}: ${r.users} user(s), ${r.transfers} transfer(s), ${r.files} file(s) (${(r.bytes / MiB).toFixed(1)} MiB), ${r.recipients} recipient(s), ${r.guests} guest(s), ${r.downloads} download(s)${r.dryRun ? ' (dry run: nothing written)' : ''}`,
  );
}

/** The view of a ferry with no database yet, for a dry run: nothing imported, nothing else there. */
function emptyFerry(): Repositories {
  const imports: Partial<Repositories['imports']> = {
    otherRecords: async () => ({ transfers: 0, guests: 0 }),
    imported: async () => new Set<number>(),
    taken: async () => [],
    tokensTaken: async () => [],
    uidsTaken: async () => [],
  };
  return { imports } as unknown as Repositories;
}
