import { Command, CommanderError } from 'commander';
import { CheckFailed, CliIO, UsageError } from './io';
import { serveCommand } from './serve';
import { versionCommand } from './version';
import { configCommand } from './config-check';
import { mailSinkCommand } from './mail-sink';
import { adminCommand } from './admin';
import { userCommand } from './user';
import { remoteAppCommand } from './remote-app';
import { purgeCommand } from './purge';
import { verifyCommand } from './verify';
import { dbCommand } from './db';
import { loginCommand } from './login';
import { sendCommand } from './send';
import { getCommand } from './get';
import { serviceCommand } from './service';
import { backupCommand } from './backup';
import { importCommand } from './import';
import { ConfigError } from '../config/validate';
import { identityKinds } from '../auth/providers/registry';
import { ClientError } from '../client/errors';
import { ServiceError } from '../domain/errors';
import { ReleaseTooOldError } from '../domain/features';

/** Adds a group of commands; each issue that owns commands registers one here. */
export type CommandModule = (program: Command, io: CliIO) => void;

export const commandModules: CommandModule[] = [
  serveCommand,
  versionCommand,
  configCommand,
  mailSinkCommand,
  adminCommand,
  userCommand,
  remoteAppCommand,
  purgeCommand,
  verifyCommand,
  loginCommand,
  sendCommand,
  getCommand,
  serviceCommand,
  dbCommand,
  backupCommand,
  importCommand,
];

/** Each identity provider kind's own commands (`ferry <kind> …`): the kind holds them (src/auth/providers/kind.ts). */
function kindCommands(): CommandModule[] {
  return identityKinds().flatMap((kind): CommandModule[] =>
    kind.commands ? [(program, io) => kind.commands?.(program, { out: io.out, usage: (m) => new UsageError(m) })] : [],
  );
}

export function buildProgram(io: CliIO, modules: CommandModule[] = [...commandModules, ...kindCommands()]): Command {
  const program = new Command('ferry')
    .description('self-hosted service for sending large files')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showSuggestionAfterError(false); // docs/architecture.md, Command line: one line on stderr
  for (const add of modules) add(program, io);
  for (const cmd of program.commands) inheritExitOverride(cmd, io);
  return program;
}

function inheritExitOverride(cmd: Command, io: CliIO): void {
  cmd.exitOverride().configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  for (const sub of cmd.commands) inheritExitOverride(sub, io);
}

/** Runs the CLI and returns the exit code of docs/architecture.md, Command line: 0 ok, 1 usage/input error, 2 internal failure. */
export async function runCli(argv: string[], io: CliIO, modules?: CommandModule[]): Promise<number> {
  const program = buildProgram(io, modules);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
        return 0;
      return 1; // commander already printed its one-line message
    }
    if (
      e instanceof UsageError ||
      e instanceof ConfigError ||
      e instanceof CheckFailed ||
      e instanceof ReleaseTooOldError
    ) {
      io.err(`error: ${e.message}`);
      return 1;
    }
    if (e instanceof ClientError) {
      io.err(`error: ${e.message}`);
      return e.exitCode;
    }
    if (e instanceof ServiceError) {
      io.err(`error: ${e.id}${e.details?.length ? ` (${e.details.join(', ')})` : ''}`);
      return e.status < 500 ? 1 : 2;
    }
    io.err(`internal error: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
}
