import os from 'node:os';
import type { Config } from './config/defaults';
import { guestLimitsOf, quotaLimitsOf, reminderMarksOf, transferLimitsOf } from './config/service-limits';
import { Settings } from './config/settings';
import { openDatabase, Database } from './db/database';
import { GuestsService } from './domain/guests';
import { guestRoutes } from './http/routes/guest';
import { transferRoutes } from './http/routes/transfer';
import { fileRoutes } from './http/routes/file';
import { recipientRoutes } from './http/routes/recipient';
import { frequentRecipientRoutes } from './http/routes/frequent-recipients';
import { downloadRoutes } from './http/routes/download';
import { UsageService } from './domain/usage';
import { DigestJobs } from './domain/digests';
import { AssemblyJobs } from './domain/assembly';
import { hasMultipartUploads, hasUploadHashing } from './domain/ports';
import { openFileStore } from './storage/kinds';
import { HashThread } from './util/hash-thread';
import { BodyPool } from './util/body-pool';
import { threadedSignatureCheck } from './auth/signature';
import { cryptoIds, scryptPasswords } from './auth/passwords';
import { TransfersService } from './domain/transfers';
import { PurgeService } from './domain/purge';
import { startPurgeTimer } from './purge-timer';
import { UploadsService } from './domain/uploads';
import { UploadProgress } from './domain/upload-progress';
import { UploadSlots } from './domain/upload-slots';
import { legacyUploadRoutes } from './http/routes/legacy-upload';
import { RecipientsService } from './domain/recipients';
import { DownloadsService } from './domain/downloads';
import { SharingService } from './domain/sharing';
import { VirusScans } from './domain/virus-scans';
import { ClamdScanner } from './antivirus/clamd';
import { AutomaticReminders } from './domain/automatic-reminders';
import { downloadPage } from './http/web/download-page';
import { fileKeyChecker } from './domain/chunk-keys';
import { systemClock, type Clock, type Notifier } from './domain/ports';
import { verifyStoredFiles } from './domain/verify';
import { importFromFileSender } from './domain/filesender-import';
import type { Services } from './services';
import { UsersService } from './domain/users';
import { MailQueue } from './mail/queue';
import { MailNotifier } from './mail/notifier';
import { inboxTransport, redactTransportUrl, smtpTransport } from './mail/transport';
import { mailRoute, type MailRoute } from './mail/route';
import { providerConfigs } from './config/provider-schemas';
import { buildIdentityProviders } from './auth/providers/registry';
import { describeStore } from './config/stores';
import { SessionServiceProvider } from './auth/session-sp';
import { GuestTokenAuthenticator } from './auth/guest-token';
import { RemoteApplicationAuthenticator, RemoteUserAuthenticator } from './auth/remote';
import { AccountsService } from './domain/accounts';
import { SignInService } from './domain/sign-in';
import { userRoutes } from './http/routes/user';
import { configRoutes } from './http/routes/config';
import { loginRoutes } from './http/routes/login';
import type { Authenticator } from './auth/principal';
import { buildHttpApp, type HttpApp, RouteModule } from './http/app';
import { PageRegistry } from './http/web/pages';
import { registerWebPages } from './http/web/app-pages';
import { assetRouter } from './http/web/assets';
import { mailSinkPage } from './http/web/mail-sink-page';
import { consoleLogger, Logger } from './log';
import { allowList, Metrics } from './http/ops/metrics';
import { Readiness, type ReadinessCheck } from './http/ops/readiness';
import { opsRoutes } from './http/routes/ops';
import { VERSION } from './version';
import { FEATURE_LEVEL, NodeFeatures } from './domain/features';

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

/** How often a running server reads the runtime overrides again (another node's PUT /config). */
const SETTINGS_RELOAD_MS = 5000;
/** How often a node looks for completed files whose SHA-256 is still to be computed (S3 store). */
/** How often a node looks for virus scans to take up (held ones are due every few minutes). */
const SCAN_POLL_MS = 30_000;
const DIGEST_POLL_MS = 5_000;
/** How often a node looks for background completions to take up: a lapsed claim waits at most this long more. */
const ASSEMBLY_POLL_MS = 5_000;
/** How long a mail server that answered counts as reachable for /readyz (no SMTP session per probe). */
const MAIL_CHECK_CACHE_MS = 5000;

let appsInProcess = 0;
/**
 * The name this node's log lines and its row among the running nodes carry: `<host>:<pid>` (a second app in one
 * process, as in the tests, adds `#2`).
 */
function nodeName(): string {
  appsInProcess++;
  return `${os.hostname()}:${process.pid}${appsInProcess > 1 ? `#${appsInProcess}` : ''}`;
}

/**
 * The composition root: the only place that builds concrete parts (database, file store, mail, auth) from the
 * config and hands them to the domain's services through their ports.
 */
export async function createApp(config: Config, opts: AppOptions = {}): Promise<FerryApp> {
  const log = opts.log ?? consoleLogger();
  const clock = opts.clock ?? systemClock;
  const node = nodeName();
  // What background work claims, finishes and takes over, with the node's name (docs/deploying.md, Logs).
  const note = (msg: string) => log.info(`node ${node}: ${msg}`);
  const ids = cryptoIds;
  let settings: Settings | null = null;
  const db = await openDatabase({
    dataDir: config.data_dir,
    url: config.database_url,
    auditEnabled: () => settings?.get().auditlog_enabled ?? config.auditlog_enabled,
  });
  const { repos, uow } = db;
  settings = new Settings(config, repos.overrides);
  await settings.reload();
  const cfg = settings;
  const users = new UsersService({ store: repos.users, configAdmins: () => cfg.get().admin, clock, ids });
  const accounts = new AccountsService({ repos, uow, users, clock, ids, passwords: scryptPasswords });
  const signIn = new SignInService({
    repos,
    users,
    accounts,
    clock,
    providers: providerConfigs(config.auth.sp).map((p) => ({
      id: p.id,
      type: p.type,
      linkAccountsOf: p.link_accounts_of,
      adoptUnattributed: p.adopt_unattributed,
    })),
  });

  // With mail.sink set, all mail goes to the sink (CLI commands too, to the one `serve` runs); with no
  // transport at all, into the built-in inbox's folder.
  const route: MailRoute =
    opts.mailTransportUrl !== undefined
      ? { kind: 'smtp', url: opts.mailTransportUrl }
      : mailRoute(config.mail, config.data_dir);
  // Where the mail is kept instead of delivered, for the admins' banner and viewer; null when it is delivered.
  const mailInbox = config.mail.sink?.dir ?? (route.kind === 'inbox' ? route.dir : null);
  // Built always (cheap), exposed only when config.metrics allows someone; a registry of this instance's own.
  // The sources are read at scrape time; hashThread and fileStore are assigned below, before any request.
  const metrics = new Metrics({
    transfersByStatus: async () => {
      const rows = await db.query<{ status: string; n: number | string }>(
        'SELECT status, COUNT(*) AS n FROM transfers GROUP BY status',
      );
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    },
    mailQueueDepth: async () =>
      Number(
        (await db.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM mail_queue WHERE status = 'pending'`))[0]
          ?.n ?? 0,
      ),
    hashingBacklog: () => hashThread.pending,
  });
  const mailTransport = metrics.countedTransport(
    route.kind === 'smtp' ? smtpTransport(route.url) : inboxTransport(route.dir),
  );
  const mailQueue = new MailQueue(repos.mailQueue, repos.trackingErrors, mailTransport, clock, log, { node });
  const notifier = new MailNotifier(cfg, () => mailQueue.kick(), clock);
  const guestLimits = () => guestLimitsOf(cfg.get());
  const guests = new GuestsService({ repos, uow, notifier, clock, ids });

  const identity = await buildIdentityProviders(config, {
    accounts,
    users,
    signIn,
    clock,
    baseUrl: () => cfg.get().base_url,
    logLine: (l) => log.info(l),
    oneTime: repos.signatures,
  });
  // The spec's evaluation order: guest token, service provider (the providers that vouch for each request,
  // then the sessions the others' sign-ins made), remote application, remote user.
  const authenticators: Authenticator[] = [new GuestTokenAuthenticator((t) => repos.guests.findByToken(t), clock)];
  authenticators.push(...identity.authenticators());
  if (identity.signsIn)
    authenticators.push(
      new SessionServiceProvider(
        repos.sessions,
        users,
        clock,
        (id) => (identity.get(id)?.style ?? 'proxy') !== 'proxy',
      ),
    );
  // Uploads' digests, and the HMACs of signed bodies other than chunks, are computed beside the event loop.
  const hashThread = new HashThread();
  const bodyPool = new BodyPool();
  const sig = {
    baseUrl: () => cfg.get().base_url,
    maxAge: config.auth.signature_max_age_s,
    maxFuture: config.auth.signature_max_future_s,
    check: threadedSignatureCheck(hashThread, bodyPool),
  };
  if (config.auth.remote_application_enabled)
    authenticators.push(new RemoteApplicationAuthenticator(repos.remoteApps, repos.signatures, users, sig, clock));
  if (config.auth.remote_user_enabled)
    authenticators.push(new RemoteUserAuthenticator(repos.users, repos.signatures, users, sig, clock));

  const fileStore = await openFileStore(config.storage, { dataDir: config.data_dir, hashThread });
  // Stores that cannot hash during uploads get each completed file's SHA-256 in the background, on any node.
  const digestJobs = hasUploadHashing(fileStore)
    ? null
    : new DigestJobs(repos, fileStore, clock, (e) => log.error(`SHA-256 of a completed file: ${e.message}`), note);
  const transferLimits = () => transferLimitsOf(cfg.get());
  const encryptionPolicy = () => {
    const c = cfg.get();
    return {
      enabled: c.encryption_enabled,
      mandatory: c.encryption_mandatory,
      defaultIterations: c.encryption_password_hash_iterations,
      chunkSize: c.upload_chunk_size,
    };
  };
  const usage = new UsageService({
    repos,
    files: fileStore,
    clock,
    limits: () => quotaLimitsOf(cfg.get()),
  });
  // Completions that outlive their request (a file in many parts on S3) are finished by any node.
  let assemblyJobs: AssemblyJobs | null = null;
  // Virus scanning (docs/sharing.md): built from the config's antivirus key; null scans nothing.
  let virusScans: VirusScans | null = null;
  const transfers = new TransfersService({
    repos,
    uow,
    files: fileStore,
    notifier,
    guests,
    clock,
    ids,
    limits: transferLimits,
    usage,
    chunkSize: () => cfg.get().upload_chunk_size,
    assembleLater: () => void assemblyJobs?.kick(),
    scanning: () => virusScans,
  });
  const av = config.antivirus;
  const scanner = av ? new ClamdScanner(av.clamd, av.timeout_s * 1000) : null;
  virusScans = new VirusScans({
    repos,
    uow,
    files: fileStore,
    notifier,
    transfers,
    clock,
    policy: () =>
      av && scanner ? { scanner, onInfected: av.on_infected, onError: av.on_error, maxBytes: av.max_bytes } : null,
    configAdmins: () => cfg.get().admin,
    log,
    node,
  });
  const scans = virusScans;
  const uploads = new UploadsService({
    repos,
    uow,
    files: fileStore,
    guests,
    clock,
    chunkLimit: () => cfg.get().upload_chunk_size,
    digestLater: () => void digestJobs?.kick(),
    assembleLater: () => void assemblyJobs?.kick(),
  });
  const recipients = new RecipientsService({
    repos,
    uow,
    files: fileStore,
    transfers,
    notifier,
    guests,
    clock,
    ids,
    maxRecipients: () => cfg.get().max_transfer_recipients,
  });
  const downloads = new DownloadsService({ repos, uow, notifier, clock });
  if (hasMultipartUploads(fileStore)) {
    assemblyJobs = new AssemblyJobs(
      repos,
      {
        finishFile: async (actor, id) => {
          const f = await repos.transfers.findFile(id);
          if (f) await uploads.finishAssembly(actor, f);
        },
        completeTransfer: (actor, id) => transfers.completeWhenAssembled(actor, id),
      },
      clock,
      (e) => log.error(`completing a file in the background: ${e.message}`),
      note,
    );
  }
  const sharing = new SharingService({ repos, uow, clock });
  const reminders = new AutomaticReminders({
    repos,
    uow,
    notifier,
    clock,
    marks: () => reminderMarksOf(cfg.get()),
  });
  const purge = new PurgeService({
    repos,
    uow,
    files: fileStore,
    guests,
    notifier,
    lifetimeDays: () => cfg.get().auditlog_lifetime_days,
    clock,
    reminders,
  });

  const services: Services = {
    purge,
    usage,
    accounts,
    users,
    signIn,
    transfers,
    uploads,
    uploadProgress: new UploadProgress(),
    bodyPool,
    uploadSlots: new UploadSlots(() => cfg.get().max_concurrent_chunk_uploads),
    recipients,
    downloads,
    sharing,
    virusScans: scans,
    openFile: (f, start, end) => fileStore.openRead(f.transferId, f.uid, start, end),
    verifyStoredFiles: (onProgress) => verifyStoredFiles(repos, fileStore, onProgress),
    importFromFileSender: (source, opts, onProgress) =>
      importFromFileSender(
        { repos, uow, files: fileStore, clock, pieceSize: () => cfg.get().upload_chunk_size },
        source,
        opts,
        onProgress,
      ),
    ...(hasUploadHashing(fileStore)
      ? {
          storedDigest: {
            stream: (f) => {
              const s = fileStore.readDigest(f.transferId, f.uid);
              return { ahead: s.ahead, digest: async (size) => (await s.digest(size)).sha256, forget: s.forget };
            },
          },
        }
      : {}),
    chunkKeys: fileKeyChecker((id) => repos.transfers.fileUids(id)),
    settings: cfg,
    guestLimits,
    transferLimits,
    encryptionPolicy,
    locks: db.locks,
    log,
    clock,
    version: VERSION,
    authenticators,
    identity,
    mailQueue,
    mailInbox,
    mailDelivery: repos.mailQueue,
    trackingErrors: repos.trackingErrors,
    guests,
    userLang: (id) => users.lang(id),
  };
  const pages = new PageRegistry();
  registerWebPages(pages);
  pages.register('mail-sink', mailSinkPage);
  pages.register('download', downloadPage);
  const routes: RouteModule[] = [
    userRoutes,
    configRoutes,
    guestRoutes,
    transferRoutes,
    fileRoutes,
    legacyUploadRoutes,
    recipientRoutes,
    frequentRecipientRoutes,
    downloadRoutes,
    loginRoutes,
  ];
  const readinessChecks: ReadinessCheck[] = [
    // A read of a real table, not `SELECT 1`: on SQLite that would answer without touching the file.
    { name: 'database', check: async () => void (await db.query('SELECT id FROM transfers LIMIT 1')) },
    { name: 'store', check: () => fileStore.check() },
  ];
  // The SMTP server answers, or the built-in inbox's folder is writable.
  if (mailTransport.verify)
    readinessChecks.push({ name: 'mail', check: () => mailTransport.verify!(), cacheMs: MAIL_CHECK_CACHE_MS });
  routes.push(
    opsRoutes({
      metrics: config.metrics ? { registry: metrics, allowed: allowList(config.metrics.allow) } : null,
      readiness: new Readiness(readinessChecks),
    }),
  );
  const http = buildHttpApp(services, {
    routes,
    pages,
    extraRouters: [assetRouter()],
    observe: metrics.middleware(),
  });
  const stoppers: (() => void | Promise<void>)[] = [];
  const features = new NodeFeatures(
    db.nodes,
    clock,
    { name: node, release: VERSION, featureLevel: opts.featureLevel ?? FEATURE_LEVEL },
    log,
  );
  let joined = false;

  return {
    config,
    db,
    services,
    notifier,
    http,
    features,
    async join() {
      await features.join();
      joined = true;
      const others = (await features.running()).filter((n) => n.name !== node);
      note(
        `running ${VERSION} (feature level ${features.self.featureLevel}; level in force ${features.level()})${others.length ? `, beside ${others.map((n) => `${n.name} (${n.release})`).join(', ')}` : ''}`,
      );
    },
    start() {
      if (joined) features.start();
      log.info(`metadata: ${db.dialect === 'sqlite' ? `SQLite ${db.where}` : `PostgreSQL ${db.where}`}`);
      log.info(`files: ${describeStore(config.storage, config.data_dir)}`);
      log.info(
        route.kind === 'smtp'
          ? `mail: via ${redactTransportUrl(route.url)}`
          : `mail: kept in the built-in inbox ${route.dir}, not delivered (read it at ${cfg.get().base_url}/?s=mail-sink; set mail.transport to deliver it)`,
      );
      mailQueue.start();
      if (config.purge_interval_s > 0)
        stoppers.push(
          startPurgeTimer(
            purge,
            db.locks,
            config,
            log,
            (o) => {
              metrics.purgeOutcome(o);
              // The storage-over-time chart gets a sample a day even when no admin looks.
              usage.sampleStorage().catch((e: Error) => log.error(`storage sample: ${e.message}`));
            },
            node,
          ),
        );
      const reload = setInterval(
        () => void cfg.reload().catch((e: Error) => log.error(`settings reload: ${e.message}`)),
        SETTINGS_RELOAD_MS,
      );
      reload.unref();
      stoppers.push(() => clearInterval(reload));
      if (assemblyJobs) {
        // Completions another node left when it died (their claims lapse), or asked of another node, are taken up here.
        const jobs = assemblyJobs;
        void jobs.kick();
        const poll = setInterval(() => void jobs.kick(), ASSEMBLY_POLL_MS);
        poll.unref();
        stoppers.push(() => clearInterval(poll));
      }
      if (digestJobs) {
        // Files another node completed, or left half-hashed when it died (their claims lapse), are taken up here.
        void digestJobs.kick();
        const poll = setInterval(() => void digestJobs.kick(), DIGEST_POLL_MS);
        poll.unref();
        stoppers.push(() => clearInterval(poll));
      }
      // Scans another node left (claims lapsed), held ones due again, and those of a config turned off since.
      void scans.kick();
      const scanPoll = setInterval(() => void scans.kick(), SCAN_POLL_MS);
      scanPoll.unref();
      stoppers.push(() => clearInterval(scanPoll));
    },
    async close() {
      for (const stop of stoppers.reverse()) await stop();
      // Downloads cut by the shutdown record what they sent before the database closes (docs/sharing.md).
      await downloads.settled();
      if (joined) await features.stop();
      await scans.stop();
      // Also when never started: a CLI command that flushed mail holds a pooled SMTP connection.
      await mailQueue.stop();
      await assemblyJobs?.stop();
      await identity.close();
      await digestJobs?.stop();
      await fileStore.close();
      await hashThread.close();
      await db.close();
    },
  };
}
