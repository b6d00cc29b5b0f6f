import type { BodyPool } from '../util/body-pool';
import type { Settings } from '../config/settings';
import type { Logger } from '../log';
import type { Authenticator } from '../auth/principal';
import type { Notifier } from './notifications';
import type { TrackingError } from './model';
import type { TransfersService } from './transfers';
import type { PurgeService } from './purge';
import type { AccountsService } from './accounts';
import type { UsersService } from './users';
import type { UploadsService } from './uploads';
import type { UploadProgress } from './upload-progress';
import type { UploadSlots } from './upload-slots';
import type { RecipientsService } from './recipients';
import type { DownloadsService, FileOpener } from './downloads';
import type { GuestsService } from './guests';

/** Seconds since the epoch; injected so tests and `ferry purge --now` can move time. */
export type Clock = () => number;
export const systemClock: Clock = () => Math.floor(Date.now() / 1000);

/**
 * Everything the HTTP layer and the CLI reach, built once by the composition root (src/app.ts).
 * Each issue adds its services here; handlers receive them through ctx.state.services.
 */
export interface Services {
  settings: Settings;
  log: Logger;
  clock: Clock;
  version: string;
  /** Every e-mail goes through this (src/mail implements it). */
  notifier: Notifier;
  /** Authenticators in the spec's evaluation order. */
  authenticators: Authenticator[];
  /** The outgoing mail queue; flush() delivers what is due now (tests, shutdown). */
  mailQueue: MailOutbox;
  /** Bounces recorded against Recipients and Guests, presented in their `errors`. */
  trackingErrors: TrackingErrorReader;
  /** Guests: invitations to upload on a user's behalf (src/domain/guests.ts). */
  guests: GuestsService;
  /** Local accounts, sessions and remote applications (src/domain/accounts.ts). */
  accounts: AccountsService;
  /** Users: created on first sight, admins, preferences, remote-user secrets (src/domain/users.ts). */
  users: UsersService;
  transfers: TransfersService;
  purge: PurgeService;
  uploads: UploadsService;
  uploadProgress: UploadProgress;
  /** Memory for signed bodies, which are held whole. */
  bodyPool: BodyPool;
  /** Uploads each principal has in progress, capped by max_concurrent_chunk_uploads. */
  uploadSlots: UploadSlots;
  recipients: RecipientsService;
  downloads: DownloadsService;
  /** Reads stored bytes of a File (downloads). */
  openFile: FileOpener;
  /** Checks a chunk-upload key (a File uid) against a Transfer. */
  chunkKeys: ChunkKeyChecker;
  /** The stored language preference of a user, when one is set. */
  userLang?: (userId: string) => string | null;
}

export interface MailOutbox {
  flush(): Promise<void>;
}

export interface TrackingErrorReader {
  forTarget(target: 'Recipient' | 'Guest', id: number): TrackingError[];
  forTargets(target: 'Recipient' | 'Guest', ids: number[]): Map<number, TrackingError[]>;
}

export interface ChunkKeyChecker {
  /** True when key is the uid of one of the Transfer's files (compared in constant time). */
  matches(transferId: number, key: string): boolean;
}
