import type { IdentityProviders } from './auth/identity-providers';
import type { BodyPool } from './util/body-pool';
import type { Settings } from './config/settings';
import type { Logger } from './log';
import type { Authenticator } from './auth/principal';
import type { Clock, MailOutbox } from './domain/ports';
import type { GuestLimits } from './domain/guest-input';
import type { TransferLimits } from './domain/transfer-input';
import type { EncryptionPolicy } from './domain/encryption-input';
import type { FileRecord } from './domain/model';
import type { TransfersService } from './domain/transfers';
import type { TransferViews } from './domain/transfer-views';
import type { TransferUpdates } from './domain/transfer-updates';
import type { PurgeService } from './domain/purge';
import type { UsageService } from './domain/usage';
import type { AccountsService } from './domain/accounts';
import type { SignInService } from './domain/sign-in';
import type { UsersService } from './domain/users';
import type { UploadsService } from './domain/uploads';
import type { UploadProgress } from './domain/upload-progress';
import type { UploadSlots } from './domain/upload-slots';
import type { RecipientsService } from './domain/recipients';
import type { DownloadsService } from './domain/downloads';
import type { SharingService } from './domain/sharing';
import type { VirusScans } from './domain/virus-scans';
import type { GuestsService } from './domain/guests';
import type { VerifyProgress, VerifyReport } from './domain/verify';
import type { ChunkKeyChecker } from './domain/chunk-keys';
import type { ImportOptions, ImportProgress, ImportReport } from './domain/filesender-import';
import type { FileSenderSource } from './domain/ports/filesender-source';

/**
 * Everything the HTTP layer and the CLI reach, built once by the composition root (src/app.ts, from the
 * capabilities of src/compose/). Use cases and what they are configured with, never a repository or a lock
 * (test/integration/architecture.test.ts); handlers receive them through ctx.state.services.
 */
export interface Services {
  settings: Settings;
  /** The limits a POST /guest or POST /transfer body is checked against, as they are now (PUT /config). */
  guestLimits: () => GuestLimits;
  transferLimits: () => TransferLimits & { extensions: number[] };
  /** What the settings say about end-to-end encryption for a new Transfer (checked at the edge with its body). */
  encryptionPolicy: () => EncryptionPolicy;
  log: Logger;
  clock: Clock;
  version: string;
  /** Authenticators in the spec's evaluation order. */
  authenticators: Authenticator[];
  /** The identity providers of auth.sp (login page, login routes, logout). */
  identity: IdentityProviders;
  /** The outgoing mail queue; flush() delivers what is due now (tests, shutdown). */
  mailQueue: MailOutbox;
  /** The folder of the built-in inbox when mail is kept there instead of delivered (admins see a banner); else null. */
  mailInbox: string | null;
  /** Guests: invitations to upload on a user's behalf (src/domain/guests.ts). */
  guests: GuestsService;
  /** Local accounts, sessions and remote applications (src/domain/accounts.ts). */
  accounts: AccountsService;
  /** Sign-in through any identity provider, under the rule of whose an account is (src/domain/sign-in.ts). */
  signIn: SignInService;
  /** Users: created on first sight, admins, preferences, remote-user secrets (src/domain/users.ts). */
  users: UsersService;
  transfers: TransfersService;
  /** The read model of every answer that shows Transfers (src/domain/transfer-views.ts). */
  transferViews: TransferViews;
  /** PUT /transfer/{id}: download limit, complete, extend, remind, close (src/domain/transfer-updates.ts). */
  transferUpdates: TransferUpdates;
  purge: PurgeService;
  /** Quotas and the admins' usage figures (src/domain/usage.ts). */
  usage: UsageService;
  uploads: UploadsService;
  uploadProgress: UploadProgress;
  /** Memory for signed bodies, which are held whole. */
  bodyPool: BodyPool;
  /** Uploads each principal has in progress, capped by max_concurrent_chunk_uploads. */
  uploadSlots: UploadSlots;
  recipients: RecipientsService;
  downloads: DownloadsService;
  /** Download limits, link passwords (docs/sharing.md). */
  sharing: SharingService;
  /** Virus scanning of completed transfers (docs/sharing.md); `enabled` says whether antivirus is configured. */
  virusScans: VirusScans;
  /**
   * The SHA-256 of a File's stored bytes, computed off the event loop (the filesystem store's hashing threads)
   * while a download sends them, one stream per download: `ahead` lets bytes [0, upTo) be hashed (so a download
   * cut short costs no more hashing than it sent), `digest` answers for the first `size`. Absent when the store
   * cannot: downloads then hash on the event loop (src/http/download/stored-check.ts).
   */
  storedDigest?: {
    stream(file: FileRecord): { ahead(upTo: number): void; digest(size: number): Promise<string>; forget(): void };
  };
  /** `ferry verify`: every stored file read and compared with its recorded SHA-256 (src/domain/verify.ts). */
  verifyStoredFiles: (onProgress?: (p: VerifyProgress) => void) => Promise<VerifyReport>;
  /** `ferry import filesender`: a FileSender installation's users, open transfers and guests brought over (src/domain/filesender-import.ts). */
  importFromFileSender: (
    source: FileSenderSource,
    opts: ImportOptions,
    onProgress?: (p: ImportProgress) => void,
  ) => Promise<ImportReport>;
  /** Checks a chunk-upload key (a File uid) against a Transfer. */
  chunkKeys: ChunkKeyChecker;
  /** The stored language preference of a user, when one is set. */
  userLang?: (userId: string) => Promise<string | null>;
}
