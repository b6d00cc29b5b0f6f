import type { Config } from '../config/defaults';
import type { FileStore, Repositories } from '../domain/ports';
import type { RouteModule } from '../http/app';
import { allowList, Metrics } from '../http/ops/metrics';
import { Readiness, type ReadinessCheck } from '../http/ops/readiness';
import { opsRoutes } from '../http/routes/ops';
import type { MailTransport } from '../mail/transport';
import type { HashThread } from '../util/hash-thread';

/** How long a mail server that answered counts as reachable for /readyz (no SMTP session per probe). */
const MAIL_CHECK_CACHE_MS = 5000;

/**
 * This instance's metrics: built always (cheap), exposed only when config.metrics allows someone; a registry of
 * its own. The sources are read at scrape time, through the repositories (no SQL outside src/db).
 */
export function composeMetrics(repos: Repositories, hashThread: HashThread, listReadsWaiting: () => number): Metrics {
  return new Metrics({
    transfersByStatus: () => repos.transfers.countByStatus(),
    mailQueueDepth: async () => (await repos.mailQueue.counts()).pending ?? 0,
    hashingBacklog: () => hashThread.pending,
    listReadsWaiting,
  });
}

/** GET /metrics and GET /readyz: the database, the store and mail (the SMTP server answers, or the inbox is writable). */
export function composeOperations(
  config: Config,
  metrics: Metrics,
  parts: { repos: Repositories; files: FileStore; mail: MailTransport },
): RouteModule {
  const checks: ReadinessCheck[] = [
    { name: 'database', check: () => parts.repos.transfers.probe() },
    { name: 'store', check: () => parts.files.check() },
  ];
  const verify = parts.mail.verify?.bind(parts.mail);
  if (verify) checks.push({ name: 'mail', check: () => verify(), cacheMs: MAIL_CHECK_CACHE_MS });
  return opsRoutes({
    metrics: config.metrics ? { registry: metrics, allowed: allowList(config.metrics.allow) } : null,
    readiness: new Readiness(checks),
  });
}
