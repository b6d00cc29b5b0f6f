import type { Command } from 'commander';
import type { CliIO } from './io';
import { VERSION } from '../version';

export function versionCommand(program: Command, io: CliIO): void {
  program
    .command('version')
    .description('print the version')
    .option('--json', 'print as JSON')
    .action((opts: { json?: boolean }) => {
      io.out(opts.json ? JSON.stringify({ version: VERSION, node: process.versions.node }) : `ferry ${VERSION}`);
    });
}
