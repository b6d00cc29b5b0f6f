import path from 'node:path';
import type { Command } from 'commander';
import { CliIO, UsageError } from './io';
import { configFrom } from './config-option';
import type { RunningSink } from '../mail/sink';

export interface MailSinkOpts {
  config?: string;
  port?: string;
  host?: string;
  dir?: string;
}

/** Starts the sink alone: mail.sink from the config (or its defaults), with --port/--host/--dir on top. */
export async function startMailSink(opts: MailSinkOpts, io: CliIO): Promise<RunningSink> {
  const { config } = configFrom(opts);
  const port = opts.port !== undefined ? Number(opts.port) : (config.mail.sink?.port ?? 2525);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port: not a port number: ${opts.port}`);
  const { startSink } = await import('../mail/sink');
  const sink = await startSink({
    host: opts.host ?? config.mail.sink?.host ?? '127.0.0.1',
    port,
    dir: path.resolve(opts.dir ?? config.mail.sink?.dir ?? path.join(config.data_dir, 'mail-sink')),
  });
  io.out(`listening on ${sink.url}`);
  io.out(`storing messages in ${sink.dir}`);
  return sink;
}

export function mailSinkCommand(program: Command, io: CliIO): void {
  program
    .command('mail-sink')
    .description('run the built-in SMTP sink alone: every message is stored as an .eml file')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .option('--port <n>', 'port to listen on (default mail.sink.port or 2525; 0 = any free port)')
    .option('--host <addr>', 'address to listen on (default 127.0.0.1)')
    .option('--dir <dir>', 'where to store the messages (default <data_dir>/mail-sink)')
    .action(async (opts: MailSinkOpts) => {
      const sink = await startMailSink(opts, io);
      await new Promise<void>((resolve) => {
        const stop = () => void sink.close().then(resolve, resolve);
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
    });
}
