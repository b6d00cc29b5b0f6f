import type { Config } from '../config/defaults';
import { guestLimitsOf, quotaLimitsOf, reminderMarksOf, transferLimitsOf } from '../config/service-limits';
import { AssemblyJobs, type AssemblyWork } from '../domain/assembly';
import { AutomaticReminders } from '../domain/automatic-reminders';
import { fileKeyChecker } from '../domain/chunk-keys';
import { DigestJobs } from '../domain/digests';
import { DownloadsService } from '../domain/downloads';
import { importFromFileSender } from '../domain/filesender-import';
import { GuestsService } from '../domain/guests';
import {
  hasMultipartUploads,
  hasUploadHashing,
  type Clock,
  type FileStore,
  type IdGenerator,
  type Locks,
  type Notifier,
  type Repositories,
  type UnitOfWork,
} from '../domain/ports';
import { PurgeService } from '../domain/purge';
import { RecipientsService } from '../domain/recipients';
import { SharingService } from '../domain/sharing';
import { TransferUpdates } from '../domain/transfer-updates';
import { TransferViews } from '../domain/transfer-views';
import { TransfersService } from '../domain/transfers';
import { UploadProgress } from '../domain/upload-progress';
import { UploadSlots } from '../domain/upload-slots';
import { UploadsService } from '../domain/uploads';
import { UsageService } from '../domain/usage';
import { verifyStoredFiles } from '../domain/verify';
import { VirusScans, type ScanPolicy } from '../domain/virus-scans';
import type { Services } from '../services';

/** What the transfer services need of the world: the same ports for the server and for the in-memory fakes. */
export interface TransferPorts {
  repos: Repositories;
  uow: UnitOfWork;
  locks: Locks;
  files: FileStore;
  notifier: Notifier;
  clock: Clock;
  ids: IdGenerator;
}

export interface TransferOptions {
  /** The config as it is now (the server's: the file under PUT /config's overrides). */
  settings: () => Config;
  /** Virus scanning (src/compose/scanning.ts); null scans nothing. */
  scanPolicy: () => ScanPolicy | null;
  log: { info(m: string): void; error(m: string): void };
  /** The node's name and its log line of what background work it claims (src/compose/node.ts). */
  node?: { name: string; note(msg: string): void };
}

/**
 * Transfers, uploads, recipients, downloads, sharing, guests, quotas, scanning, reminders and purge: the domain's
 * services on the given ports, with the background work the store needs (each completed file's SHA-256 when it
 * cannot hash during uploads; completions any node finishes when a file is in many parts). The composition root
 * builds them on the database and the configured store; test/fakes/domain.ts on the in-memory ports.
 */
export function composeTransfers(p: TransferPorts, o: TransferOptions) {
  const { repos, uow, files, notifier, clock, ids } = p;
  const cfg = o.settings;
  const note = o.node?.note ?? (() => {});
  const guests = new GuestsService({ repos, uow, notifier, clock, ids });
  const usage = new UsageService({ repos, files, clock, limits: () => quotaLimitsOf(cfg()) });
  // Stores that cannot hash during uploads get each completed file's SHA-256 in the background, on any node.
  const digestJobs = hasUploadHashing(files)
    ? null
    : new DigestJobs(repos, files, clock, (e) => o.log.error(`SHA-256 of a completed file: ${e.message}`), note);
  // Completions that outlive their request (a file in many parts on S3) are finished by any node; built below.
  let assemblyJobs: AssemblyJobs | null = null;
  let virusScans: VirusScans | null = null;
  const transfers = new TransfersService({
    ...p,
    guests,
    usage,
    limits: () => transferLimitsOf(cfg()),
    chunkSize: () => cfg().upload_chunk_size,
    assembleLater: () => void assemblyJobs?.kick(),
    scanning: () => virusScans,
  });
  const scans = new VirusScans({
    ...p,
    transfers,
    policy: o.scanPolicy,
    configAdmins: () => cfg().admin,
    log: o.log,
    node: o.node?.name,
  });
  virusScans = scans;
  const uploads = new UploadsService({
    ...p,
    guests,
    chunkLimit: () => cfg().upload_chunk_size,
    digestLater: () => void digestJobs?.kick(),
    assembleLater: () => void assemblyJobs?.kick(),
  });
  if (hasMultipartUploads(files)) {
    const work: AssemblyWork = {
      finishFile: async (actor, id) => {
        const f = await repos.transfers.findFile(id);
        if (f) await uploads.finishAssembly(actor, f);
      },
      completeTransfer: (actor, id) => transfers.completeWhenAssembled(actor, id),
    };
    const onError = (e: Error) => o.log.error(`completing a file in the background: ${e.message}`);
    assemblyJobs = new AssemblyJobs(repos, work, clock, onError, note);
  }
  const recipients = new RecipientsService({
    ...p,
    transfers,
    guests,
    maxRecipients: () => cfg().max_transfer_recipients,
  });
  const downloads = new DownloadsService(p);
  const sharing = new SharingService(p);
  const reminders = new AutomaticReminders({ ...p, marks: () => reminderMarksOf(cfg()) });
  const lifetimeDays = () => cfg().auditlog_lifetime_days;
  const purge = new PurgeService({ ...p, guests, lifetimeDays, reminders });
  const services = {
    guests,
    usage,
    transfers,
    transferViews: new TransferViews({ transfers, extras: repos.transferExtras, virusScans: scans }),
    transferUpdates: new TransferUpdates({ transfers, sharing }),
    virusScans: scans,
    uploads,
    uploadProgress: new UploadProgress(),
    uploadSlots: new UploadSlots(() => cfg().max_concurrent_chunk_uploads),
    recipients,
    downloads,
    sharing,
    purge,
    chunkKeys: fileKeyChecker((id) => repos.transfers.fileUids(id)),
    guestLimits: () => guestLimitsOf(cfg()),
    transferLimits: () => transferLimitsOf(cfg()),
    encryptionPolicy: () => {
      const c = cfg();
      return {
        enabled: c.encryption_enabled,
        mandatory: c.encryption_mandatory,
        defaultIterations: c.encryption_password_hash_iterations,
        chunkSize: c.upload_chunk_size,
      };
    },
    verifyStoredFiles: (onProgress) => verifyStoredFiles(repos, files, onProgress),
    importFromFileSender: (source, opts, onProgress) =>
      importFromFileSender({ ...p, pieceSize: () => cfg().upload_chunk_size }, source, opts, onProgress),
    ...(hasUploadHashing(files)
      ? {
          storedDigest: {
            stream: (f) => {
              const s = files.readDigest(f.transferId, f.uid);
              return { ahead: s.ahead, digest: async (size) => (await s.digest(size)).sha256, forget: s.forget };
            },
          },
        }
      : {}),
  } satisfies Partial<Services>;
  return { services, reminders, digestJobs, assemblyJobs };
}

export type TransferParts = ReturnType<typeof composeTransfers>;
