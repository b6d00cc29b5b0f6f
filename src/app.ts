import path from 'node:path';
import type Koa from 'koa';
import type { Config } from './config/defaults';
import { Settings } from './config/settings';
import { openDatabase, Db } from './db/connection';
import { UsersRepo } from './db/users-repo';
import { OverridesRepo } from './db/overrides-repo';
import { GuestsRepo } from './db/guests-repo';
import { GuestsService } from './domain/guests';
import { guestRoutes } from './http/routes/guest';
import { transferRoutes } from './http/routes/transfer';
import { fileRoutes } from './http/routes/file';
import { recipientRoutes } from './http/routes/recipient';
import { frequentRecipientRoutes } from './http/routes/frequent-recipients';
import { FrequentRecipientsRepo } from './db/frequent-recipients-repo';
import { downloadRoutes } from './http/routes/download';
import { TransfersRepo } from './db/transfers-repo';
import { AuditRepo } from './db/audit-repo';
import { DownloadsRepo } from './db/downloads-repo';
import { FsFileStore } from './storage/fs-store';
import { WorkerHasher } from './storage/file-hasher';
import { HashThread } from './util/hash-thread';
import { BodyPool } from './util/body-pool';
import { threadedSignatureCheck } from './auth/signature';
import { TransfersService } from './domain/transfers';
import { PurgeService } from './domain/purge';
import { PurgeRepo } from './db/purge-repo';
import { startPurgeTimer } from './purge-timer';
import { UploadsService } from './domain/uploads';
import { UploadProgress } from './domain/upload-progress';
import { UploadSlots } from './domain/upload-slots';
import { legacyUploadRoutes } from './http/routes/legacy-upload';
import { RecipientsService } from './domain/recipients';
import { DownloadsService } from './domain/downloads';
import { downloadPage } from './http/web/download-page';
import { fileKeyChecker } from './domain/chunk-keys';
import { Services, systemClock, Clock } from './domain/services';
import { UsersService } from './domain/users';
import { MailQueueRepo } from './db/mail-queue-repo';
import { TrackingErrorsRepo } from './db/tracking-errors-repo';
import { MailQueue } from './mail/queue';
import { MailNotifier } from './mail/notifier';
import { logTransport, redactTransportUrl, smtpTransport } from './mail/transport';
import { sinkTransportUrl } from './mail/sink';
import { HeaderServiceProvider } from './auth/header-sp';
import { SessionServiceProvider } from './auth/session-sp';
import { GuestTokenAuthenticator } from './auth/guest-token';
import { RemoteApplicationAuthenticator, RemoteUserAuthenticator } from './auth/remote';
import { SessionsRepo } from './db/sessions-repo';
import { LocalAccountsRepo } from './db/local-accounts-repo';
import { RemoteAppsRepo } from './db/remote-apps-repo';
import { SignaturesRepo } from './db/signatures-repo';
import { AccountsService } from './domain/accounts';
import { userRoutes } from './http/routes/user';
import { configRoutes } from './http/routes/config';
import { loginRoutes } from './http/routes/login';
import type { Authenticator } from './auth/principal';
import { buildHttpApp, RouteModule } from './http/app';
import { PageRegistry } from './http/web/pages';
import { registerWebPages, loginRouter } from './http/web/app-pages';
import { assetRouter } from './http/web/assets';
import { mailSinkPage } from './http/web/mail-sink-page';
import type { FerryState } from './http/state';
import { consoleLogger, Logger } from './log';
import { VERSION } from './version';

export interface AppOptions {
  log?: Logger;
  clock?: Clock;
  /** Overrides mail.transport; `serve` passes the address of the sink it started. */
  mailTransportUrl?: string | null;
}

export interface FerryApp {
  config: Config;
  db: Db;
  services: Services;
  http: Koa<FerryState>;
  /** Background work (mail queue, purge timer) to start with `serve`. */
  start(): void;
  close(): Promise<void>;
}

/** The composition root: builds every concrete part from the config and wires them together. */
export function createApp(config: Config, opts: AppOptions = {}): FerryApp {
  const log = opts.log ?? consoleLogger();
  const clock = opts.clock ?? systemClock;
  const db = openDatabase(config.data_dir);
  const settings = new Settings(config, new OverridesRepo(db));
  const usersRepo = new UsersRepo(db);
  const users = new UsersService(usersRepo, () => settings.get().admin, clock);

  const sessions = new SessionsRepo(db);
  const remoteApps = new RemoteAppsRepo(db);
  const accounts = new AccountsService(new LocalAccountsRepo(db), sessions, remoteApps, usersRepo, users, clock);

  // With mail.sink set, all mail goes to the sink (CLI commands too, to the one `serve` runs).
  const transportUrl = opts.mailTransportUrl !== undefined ? opts.mailTransportUrl : (sinkTransportUrl(config.mail.sink) ?? config.mail.transport);
  const trackingErrors = new TrackingErrorsRepo(db);
  const mailQueue = new MailQueue(
    new MailQueueRepo(db),
    trackingErrors,
    transportUrl ? smtpTransport(transportUrl) : logTransport(log),
    clock,
    log,
  );
  const notifier = new MailNotifier(mailQueue, settings, {
    userLang: (id) => users.lang(id),
    userEmail: (id) => usersRepo.emails(id)[0] ?? null,
    guestLang: (id) => guestsRepo.find(id)?.lang ?? null,
  });
  const guestLimits = () => {
    const c = settings.get();
    return { defaultDays: c.default_guest_days_valid, maxDays: c.max_guest_days_valid };
  };
  const guestsRepo = new GuestsRepo(db);
  const guests = new GuestsService(guestsRepo, notifier, guestLimits, clock);

  // The spec's evaluation order: guest token, service provider, remote application, remote user.
  const authenticators: Authenticator[] = [new GuestTokenAuthenticator((t) => guestsRepo.findByToken(t), clock)];
  authenticators.push(config.auth.sp.type === 'header' ? new HeaderServiceProvider(config.auth.sp, users) : new SessionServiceProvider(sessions, users, clock));
  // Uploads' digests and signed chunks' HMACs are computed beside the event loop.
  const hashThread = new HashThread();
  const bodyPool = new BodyPool();
  const sig = {
    baseUrl: () => settings.get().base_url,
    maxAge: config.auth.signature_max_age_s,
    maxFuture: config.auth.signature_max_future_s,
    check: threadedSignatureCheck(hashThread, bodyPool),
  };
  const usedSignatures = new SignaturesRepo(db);
  if (config.auth.remote_application_enabled) authenticators.push(new RemoteApplicationAuthenticator(remoteApps, usedSignatures, users, sig, clock));
  if (config.auth.remote_user_enabled) authenticators.push(new RemoteUserAuthenticator(usersRepo, usedSignatures, users, sig, clock));

  const transferStore = new TransfersRepo(db);
  const fileStore = new FsFileStore(path.join(config.data_dir, 'files'), new WorkerHasher(hashThread));
  const audit = new AuditRepo(db, () => settings.get().auditlog_enabled);
  const transferLimits = () => {
    const c = settings.get();
    return {
      maxDays: c.max_transfer_days_valid,
      maxSize: c.max_transfer_size,
      maxFiles: c.max_transfer_files,
      maxRecipients: c.max_transfer_recipients,
      extensions: c.allow_transfer_expiry_date_extension,
    };
  };
  const frequent = new FrequentRecipientsRepo(db);
  const encryptionPolicy = () => {
    const c = settings.get();
    return { enabled: c.encryption_enabled, mandatory: c.encryption_mandatory, defaultIterations: c.encryption_password_hash_iterations, chunkSize: c.upload_chunk_size };
  };
  const transfers = new TransfersService({ store: transferStore, files: fileStore, audit, frequent, notifier, guests, clock, limits: transferLimits, encryption: encryptionPolicy });
  const uploads = new UploadsService(transferStore, fileStore, audit, guests, clock, () => settings.get().upload_chunk_size);
  const recipients = new RecipientsService(transferStore, transfers, audit, notifier, clock, () => settings.get().max_transfer_recipients, guests, frequent);
  const downloads = new DownloadsService(new DownloadsRepo(db), audit, notifier, clock);

  const purge = new PurgeService(new PurgeRepo(db), transferStore, fileStore, audit, guests, notifier, () => settings.get().auditlog_lifetime_days, clock);

  const services: Services = {
    purge,
    accounts,
    users,
    transfers,
    uploads,
    uploadProgress: new UploadProgress(),
    bodyPool,
    uploadSlots: new UploadSlots(() => settings.get().max_concurrent_chunk_uploads),
    recipients,
    downloads,
    openFile: (f) => fileStore.openRead(f.transferId, f.uid),
    chunkKeys: fileKeyChecker((id) => transferStore.fileUids(id)),
    settings,
    log,
    clock,
    version: VERSION,
    authenticators,
    notifier,
    mailQueue,
    trackingErrors,
    guests,
    userLang: (id) => users.lang(id),
  };
  const pages = new PageRegistry();
  registerWebPages(pages);
  pages.register('mail-sink', mailSinkPage);
  pages.register('download', downloadPage);
  const routes: RouteModule[] = [userRoutes, configRoutes, guestRoutes, transferRoutes, fileRoutes, legacyUploadRoutes, recipientRoutes, frequentRecipientRoutes, downloadRoutes];
  const http = buildHttpApp(services, { routes, pages, extraRouters: [assetRouter(), loginRouter(), loginRoutes()] });
  const stoppers: (() => void | Promise<void>)[] = [];

  return {
    config,
    db,
    services,
    http,
    start() {
      log.info(`mail: ${transportUrl ? `via ${redactTransportUrl(transportUrl)}` : 'no transport, messages are logged only'}`);
      mailQueue.start();
      if (config.purge_interval_s > 0) stoppers.push(startPurgeTimer(purge, config, log));
    },
    async close() {
      for (const stop of stoppers.reverse()) await stop();
      // Also when never started: a CLI command that flushed mail holds a pooled SMTP connection.
      await mailQueue.stop();
      await fileStore.close();
      await hashThread.close();
      db.close();
    },
  };
}
