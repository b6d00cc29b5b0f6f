import type { Config } from '../config/defaults';
import type { Settings } from '../config/settings';
import type { Clock, Repositories } from '../domain/ports';
import type { Logger } from '../log';
import { MailNotifier } from '../mail/notifier';
import { MailQueue } from '../mail/queue';
import { mailRoute, type MailRoute } from '../mail/route';
import { inboxTransport, redactTransportUrl, smtpTransport, type MailTransport } from '../mail/transport';

export interface MailParts {
  route: MailRoute;
  transport: MailTransport;
  /** The queue's delivery worker (MailOutbox). */
  queue: MailQueue;
  notifier: MailNotifier;
  /** The folder of the built-in inbox when mail is kept there instead of delivered (admins see a banner); else null. */
  inbox: string | null;
  /** The start-up log's line. */
  describe(): string;
}

export interface MailDeps {
  repos: Repositories;
  settings: Settings;
  clock: Clock;
  log: Logger;
  node: string;
  /** Overrides where mail goes (mail.transport); `serve` passes the address of the sink it started. */
  transportUrl?: string;
  /** Wraps the transport (the metrics count what it sends). */
  counted: (t: MailTransport) => MailTransport;
}

/**
 * Where mail goes (docs/architecture.md, "Where mail goes"), its queue and the notifier that writes to it. With
 * mail.sink set, all mail goes to the sink (CLI commands too, to the one `serve` runs); with no transport at
 * all, into the built-in inbox's folder.
 */
export function composeMail(config: Config, d: MailDeps): MailParts {
  const route: MailRoute =
    d.transportUrl !== undefined ? { kind: 'smtp', url: d.transportUrl } : mailRoute(config.mail, config.data_dir);
  const transport = d.counted(route.kind === 'smtp' ? smtpTransport(route.url) : inboxTransport(route.dir));
  const queue = new MailQueue(d.repos.mailQueue, d.repos.trackingErrors, transport, d.clock, d.log, { node: d.node });
  return {
    route,
    transport,
    queue,
    notifier: new MailNotifier(d.settings, () => queue.kick(), d.clock),
    inbox: config.mail.sink?.dir ?? (route.kind === 'inbox' ? route.dir : null),
    describe: () =>
      route.kind === 'smtp'
        ? `mail: via ${redactTransportUrl(route.url)}`
        : `mail: kept in the built-in inbox ${route.dir}, not delivered (read it at ${d.settings.get().base_url}/?s=mail-sink; set mail.transport to deliver it)`,
  };
}
