import path from 'node:path';
import type { MailSinkConfig } from '../config/defaults';

/** smtp://host:port of a sink; IPv6 hosts in brackets. */
export function smtpUrl(host: string, port: number): string {
  return `smtp://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Where a process sends its mail: an SMTP server (a configured transport, or the sink `serve` runs), or a folder. */
export type MailRoute = { kind: 'smtp'; url: string } | { kind: 'inbox'; dir: string };

/**
 * The route of a config (docs/configuration.md, Mail). With mail.sink set, the sink `serve` runs (so CLI commands' mail reaches
 * it too), or its folder directly when its port is 0 (any free port, which only `serve` knows). Else
 * mail.transport; with none, the built-in inbox: messages are written into <data_dir>/mail-sink by the
 * process that sends them, so two instances or a CLI command never compete for a port.
 */
export function mailRoute(mail: { transport: string | null; sink: MailSinkConfig | null }, dataDir: string): MailRoute {
  if (mail.sink)
    return mail.sink.port !== 0
      ? { kind: 'smtp', url: smtpUrl(mail.sink.host, mail.sink.port) }
      : { kind: 'inbox', dir: mail.sink.dir };
  if (mail.transport) return { kind: 'smtp', url: mail.transport };
  return { kind: 'inbox', dir: path.resolve(dataDir, 'mail-sink') };
}
