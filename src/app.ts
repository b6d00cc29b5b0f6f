import type { Config } from './config/defaults';
import type { Database } from './db/database';
import type { NodeFeatures } from './domain/features';
import { systemClock, type Clock, type Notifier } from './domain/ports';
import { cryptoIds, scryptPasswords } from './auth/passwords';
import type { Services } from './services';
import type { HttpApp } from './http/app';
import { consoleLogger, Logger } from './log';
import { VERSION } from './version';
import { composeDatabase } from './compose/database';
import { composeStorage } from './compose/storage';
import { composeMetrics, composeOperations } from './compose/operations';
import { composeMail } from './compose/mail';
import { composeAccounts, composeIdentity } from './compose/identity';
import { scanPolicyOf } from './compose/scanning';
import { composeTransfers } from './compose/transfers';
import { composeJobs } from './compose/jobs';
import { composeHttp } from './compose/http';
import { composeMembership, thisNode } from './compose/node';

export interface AppOptions {
  log?: Logger;
  clock?: Clock;
  /** Overrides where mail goes (mail.transport); `serve` passes the address of the sink it started. */
  mailTransportUrl?: string;
  /**
   * Tests only: the feature level this node says it knows (default: this release's FEATURE_LEVEL), to run an
   * older or newer node beside this one in one process (docs/deploying.md, "Upgrading a cluster").
   */
  featureLevel?: number;
}

export interface FerryApp {
  config: Config;
  /** The metadata database (SQLite or PostgreSQL), its repositories and units of work. */
  db: Database;
  services: Services;
  /** The mailer port's adapter (tests queue mail through it directly). */
  notifier: Notifier;
  http: HttpApp;
  /** This node among the nodes sharing the database: its name, the feature level they all know. */
  features: NodeFeatures;
  /**
   * `serve` only, before it answers: records this node as running, or throws ReleaseTooOldError when the nodes
   * of this database have reached a feature level this release does not know.
   */
  join(): Promise<void>;
  /** Background work (mail queue, purge timer, settings reload) to start with `serve`. */
  start(): void;
  close(): Promise<void>;
}

/**
 * The composition root: the only place that builds concrete parts (docs/architecture.md, "The composition root").
 * Each capability (src/compose/) builds its parts from the config and hands on what the others need; this
 * function only puts them together, in the order they depend on each other, and closes them in reverse.
 */
export async function createApp(config: Config, opts: AppOptions = {}): Promise<FerryApp> {
  const log = opts.log ?? consoleLogger();
  const clock = opts.clock ?? systemClock;
  const node = thisNode(log);
  const { db, settings } = await composeDatabase(config);
  const { repos, uow, locks } = db;
  const cfg = () => settings.get();
  const ids = cryptoIds;
  const storage = await composeStorage(config);
  const metrics = composeMetrics(repos, storage.hashThread, () => db.heavyReadsWaiting());
  const counted = (t: Parameters<typeof metrics.countedTransport>[0]) => metrics.countedTransport(t);
  const mail = composeMail(config, {
    repos,
    settings,
    clock,
    log,
    node: node.name,
    transportUrl: opts.mailTransportUrl,
    counted,
  });
  const accounts = composeAccounts(config, cfg, { repos, uow, clock, ids, passwords: scryptPasswords });
  const identity = await composeIdentity(config, accounts, { repos, clock, settings: cfg, log, ...storage });
  const ports = { repos, uow, locks, files: storage.files, notifier: mail.notifier, clock, ids };
  const transfers = composeTransfers(ports, { settings: cfg, scanPolicy: scanPolicyOf(config), log, node });
  const jobs = composeJobs(config, { log, node, settings, metrics, transfers });
  const services: Services = {
    ...transfers.services,
    ...accounts,
    ...identity,
    settings,
    log,
    clock,
    version: VERSION,
    bodyPool: storage.bodyPool,
    mailQueue: mail.queue,
    mailInbox: mail.inbox,
  };
  const ops = composeOperations(config, metrics, { repos, files: storage.files, mail: mail.transport });
  const http = composeHttp(services, { routes: ops, metrics });
  const cluster = composeMembership(db.nodes, clock, node, log, opts.featureLevel);
  return {
    config,
    db,
    services,
    notifier: mail.notifier,
    http,
    features: cluster.features,
    join: cluster.join,
    start() {
      cluster.start();
      log.info(`metadata: ${db.dialect === 'sqlite' ? `SQLite ${db.where}` : `PostgreSQL ${db.where}`}`);
      log.info(storage.describe);
      log.info(mail.describe());
      mail.queue.start();
      jobs.start();
    },
    async close() {
      await jobs.stop();
      // Downloads cut by the shutdown record what they sent before the database closes (docs/sharing.md).
      await transfers.services.downloads.settled();
      await cluster.stop();
      // Also when never started: a CLI command that flushed mail holds a pooled SMTP connection.
      await mail.queue.stop();
      await identity.identity.close();
      await storage.close();
      await db.close();
    },
  };
}
