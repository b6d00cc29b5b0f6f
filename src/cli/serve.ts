import type { Command } from 'commander';
import { UsageError, type CliIO } from './io';
import { configFrom } from './config-option';
import { createLogger } from '../log';

export interface ServeHandle {
  url: string;
  stop(): Promise<void>;
  /** SIGHUP: reopens log.file (after logrotate moved it). */
  reopenLog(): void;
}

/** Starts the app and its HTTP server; resolves once "listening on" has been printed. */
export async function startServe(
  opts: { config?: string; port?: string; host?: string },
  io: CliIO,
): Promise<ServeHandle> {
  const { config, baseUrlSet } = configFrom(opts);
  // Loaded on use, so that `ferry version` and `--help` start without the server's modules.
  const [{ createApp }, { listen }, { startSink }] = await Promise.all([
    import('../app'),
    import('../http/server'),
    import('../mail/sink'),
  ]);
  const host = opts.host ?? config.listen.host;
  const port = opts.port !== undefined ? Number(opts.port) : config.listen.port;
  // With mail.sink set, every message goes to the built-in sink (air-gapped demos, tests).
  const sink = config.mail.sink ? await startSink({ ...config.mail.sink }) : null;
  if (sink) io.out(`mail sink listening on ${sink.url}, storing messages in ${sink.dir}`);
  // log.format and log.file; SIGHUP reopens the file.
  const log = createLogger(config.log);
  const app = await createApp(config, { log, ...(sink ? { mailTransportUrl: sink.url } : {}) });
  try {
    // Among the nodes of this database, or refused (ReleaseTooOldError: exit 1, one line) before it answers.
    await app.join();
  } catch (e) {
    await app.close();
    await sink?.close();
    await log.close();
    throw e;
  }
  let server: Awaited<ReturnType<typeof listen>>;
  try {
    server = await listen(app.http, host, port);
  } catch (e) {
    await app.close();
    await sink?.close();
    await log.close();
    throw listenError(e as NodeJS.ErrnoException, host, port);
  }
  if (!baseUrlSet) {
    // Listening on every address with no public address set: links would name localhost, dead for everyone
    // else. Said here and, until an admin sets the address (Administration), on the admins' pages.
    const everyAddress = ['0.0.0.0', '::'].includes(host);
    app.services.settings.setBaseUrl(linkUrl(host, server.port, server.url), everyAddress);
    if (app.services.settings.publicAddressMissing()) {
      io.out(
        `warning: listening on every address, but links in mails name ${app.services.settings.get().base_url}, which no other machine reaches: set base_url (the address people use) in the config, or in the web pages under Administration`,
      );
    }
  }
  // Only once the address is ours: a start that fails on a taken port must not use up the one showing of the password.
  if (app.services.identity.localAccounts) {
    const password = await app.services.accounts.ensureInitialAdmin();
    if (password)
      io.out(
        `created the first account: user "admin", password ${password} (shown once; change it with: ferry user passwd admin --password-stdin)`,
      );
  }
  app.start();
  io.out(`listening on ${server.url}`);
  if (config.log.file) log.info(`listening on ${server.url}`);
  let stopping: Promise<void> | null = null;
  return {
    url: server.url,
    stop: () =>
      (stopping ??= (async () => {
        await server.close();
        await app.close();
        await sink?.close();
        await log.close();
      })()),
    reopenLog: () => {
      log.reopen();
      log.info(
        config.log.file
          ? `SIGHUP: reopened ${config.log.file}`
          : 'SIGHUP: nothing to reopen (logging to standard output)',
      );
    },
  };
}

/** A taken or forbidden address is the admin's to fix: one line naming it and how to pick another (exit 1). */
function listenError(e: NodeJS.ErrnoException, host: string, port: number): Error {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const how = 'choose another with --port N, or set "listen": {"host": …, "port": …} in the config';
  if (e.code === 'EADDRINUSE')
    return new UsageError(`the address ${address} is already in use (another ferry or another server?): ${how}`);
  if (e.code === 'EACCES')
    return new UsageError(`not allowed to listen on ${address} (ports below 1024 need privileges): ${how}`);
  if (e.code === 'EADDRNOTAVAIL') return new UsageError(`the address ${address} is not one of this machine's: ${how}`);
  return e;
}

/**
 * The base for links when the config sets no base_url: the address listened on, with "localhost" for the
 * loopback and wildcard addresses (a browser on this machine reaches them so, and it is what people type).
 */
function linkUrl(host: string, port: number, listening: string): string {
  return ['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost'].includes(host) ? `http://localhost:${port}` : listening;
}

export function serveCommand(program: Command, io: CliIO): void {
  program
    .command('serve')
    .description('run the server')
    .option('-c, --config <file>', 'config file (default ./ferry.json, or $FERRY_CONFIG)')
    .option('--port <n>', 'override listen.port (0 = any free port)')
    .option('--host <addr>', 'override listen.host')
    .action(async (opts: { config?: string; port?: string; host?: string }) => {
      const handle = await startServe(opts, io);
      await new Promise<void>((resolve) => {
        const shutdown = (signal: string) => {
          io.err(`${signal} received, finishing in-flight requests`);
          handle.stop().then(resolve, resolve);
        };
        process.once('SIGTERM', () => shutdown('SIGTERM'));
        process.once('SIGINT', () => shutdown('SIGINT'));
        // logrotate (or systemctl reload) sends SIGHUP after moving the log file away; it never stops the server.
        process.on('SIGHUP', () => handle.reopenLog());
      });
    });
}
