import type { StoredPiece } from './file-store';
import type { Page } from '../paging';
import type {
  AuditEntry,
  FileRecord,
  Guest,
  MailDelivery,
  Recipient,
  TrackingError,
  Transfer,
  TransferStatus,
} from '../model';

/**
 * The repositories: every read and write of metadata the domain makes, each Promise-returning so that the
 * same services run on SQLite (src/db, better-sqlite3) and on PostgreSQL (src/db, pg). A repository obtained
 * from a unit of work (./unit-of-work.ts) runs inside its transaction; the root set outside any.
 */

export type NewTransfer = Pick<
  Transfer,
  | 'userId'
  | 'userEmail'
  | 'guestId'
  | 'subject'
  | 'message'
  | 'options'
  | 'lang'
  | 'created'
  | 'expires'
  | 'roundtripToken'
> &
  Partial<Pick<Transfer, 'encryption'>>;
export type NewFile = Pick<FileRecord, 'uid' | 'name' | 'size' | 'mimeType' | 'cid'> &
  Partial<Pick<FileRecord, 'iv' | 'aead'>>;
export interface NewRecipient {
  email: string;
  token: string;
  lang: string | null;
}

/** Whose Transfers a list shows. */
export type TransferOwner = { userId: string } | { guestId: number } | 'all';

/** Transfers with their files and recipients. */
export interface TransferRepository {
  /** Inserts the Transfer (status created) with its files and recipients; returns its id. */
  create(t: NewTransfer, files: NewFile[], recipients: NewRecipient[]): Promise<number>;
  find(id: number): Promise<Transfer | undefined>;
  /** find() that also holds the row until the unit of work ends (PostgreSQL: FOR UPDATE), for status changes. */
  lock(id: number): Promise<Transfer | undefined>;
  listOfUser(userId: string): Promise<Transfer[]>;
  listOfGuest(guestId: number): Promise<Transfer[]>;
  listAll(): Promise<Transfer[]>;
  /** How many Transfers are in each status (the metrics' gauge), statuses with none left out. */
  countByStatus(): Promise<Record<string, number>>;
  /**
   * Reads one row of the transfers table and throws when the database cannot answer (the readiness check): a
   * read of a real table, since selecting a constant on SQLite would answer without touching the file.
   */
  probe(): Promise<void>;
  /**
   * One page of Transfers, newest first: a user's, a guest's or everyone's; `page` null: all of them. Read in one
   * statement, whatever the page's size (docs/architecture.md, "Lists and pages").
   */
  listPage(owner: TransferOwner, page: Page | null): Promise<Transfer[]>;
  /**
   * Inside a unit of work: these Transfers, held until it ends (PostgreSQL: FOR UPDATE, taken in the order of
   * their ids), in that order; ids not found are left out.
   */
  lockMany(ids: number[]): Promise<Transfer[]>;
  /** Closes these Transfers at `now` for `reason`, in one statement. */
  closeMany(ids: number[], now: number, reason: string): Promise<void>;
  /** The files (not deleted) of several Transfers at once, in upload order, in one statement. */
  filesOf(transferIds: number[]): Promise<FileRecord[]>;
  /** The recipients (not deleted) of several Transfers at once, by id, in one statement. */
  recipientsOf(transferIds: number[]): Promise<Recipient[]>;
  setStatus(id: number, status: TransferStatus, now: number, reason?: string | null): Promise<void>;
  /** Moves created/started to uploading once; true when this call did it (the first chunk). */
  markUploading(id: number): Promise<boolean>;
  extendExpiry(id: number, expires: number): Promise<void>;
  /** The Transfer's files that are not deleted, in upload order. */
  files(transferId: number): Promise<FileRecord[]>;
  findFile(id: number): Promise<FileRecord | undefined>;
  fileUids(transferId: number): Promise<string[]>;
  /**
   * Merges a written range and records the chunk the store wrote for it (`piece`, in stored bytes; pieces lying
   * inside it are replaced); undefined (nothing recorded) when the File is deleted or its Transfer closed.
   */
  recordRange(fileId: number, start: number, end: number, piece?: StoredPiece): Promise<FileRecord | undefined>;
  /** The chunks recorded for a File, by start. */
  pieces(fileId: number): Promise<StoredPiece[]>;
  /**
   * Holds the File's row until the unit of work ends and reads its store upload; undefined when the File is
   * deleted or its Transfer closed.
   */
  lockStoreUpload(fileId: number): Promise<{ upload: string | null } | undefined>;
  setStoreUpload(fileId: number, upload: string | null): Promise<void>;
  /** Unfinished store uploads of a Transfer's files, deleted ones too (the purge aborts them). */
  storeUploads(transferId: number): Promise<{ fileId: number; uid: string; upload: string }[]>;
  /**
   * Marks a File complete with its digests (sha256 null: computed later, see claimDigest) and forgets its store
   * upload; false when it is deleted or its Transfer closed meanwhile.
   */
  completeFile(fileId: number, crc32: number, sha256: string | null): Promise<boolean>;
  /**
   * Claims a complete File whose SHA-256 is still to be computed, for this caller until `until` (another node
   * may take it over after that); undefined when none is waiting.
   */
  claimDigest(now: number, until: number): Promise<(FileRecord & { lapsed?: boolean }) | undefined>;
  /** Extends a claim on a file's SHA-256 while its node reads the file. */
  renewDigest(fileId: number, until: number): Promise<void>;
  saveDigest(fileId: number, sha256: string): Promise<void>;
  /**
   * Asks for a File's completion in the background, on behalf of `by` (an Actor as JSON); false when it is
   * complete, deleted or its Transfer closed.
   */
  requestAssembly(fileId: number, by: string): Promise<boolean>;
  /**
   * Claims a File whose completion was asked for, for this caller until `until` (another node takes it over
   * after that); undefined when none is waiting.
   */
  claimAssembly(now: number, until: number): Promise<{ file: FileRecord; by: string; lapsed?: boolean } | undefined>;
  /** Keeps a claim while the work goes on. */
  renewAssembly(fileId: number, until: number): Promise<void>;
  /** Gives a claim up (the work failed: another pass, here or on another node, tries again). */
  releaseAssembly(fileId: number): Promise<void>;
  /** Asks for a Transfer's completion once its files are assembled, on behalf of `by` (an Actor as JSON). */
  requestCompletion(transferId: number, by: string): Promise<void>;
  /** Transfers whose completion was asked for, not yet available nor closed, with who asked. */
  completionsDue(): Promise<{ transferId: number; by: string }[]>;
  /** Complete Files with a SHA-256, not deleted, of Transfers not closed, with ids above `afterId`, by id. */
  verifiableFiles(afterId: number, limit: number): Promise<FileRecord[]>;
  deleteFile(fileId: number, now: number): Promise<void>;
  recipients(transferId: number): Promise<Recipient[]>;
  findRecipient(id: number): Promise<Recipient | undefined>;
  /** The recipient holding this download token, unless removed. */
  recipientByToken(token: string): Promise<Recipient | undefined>;
  /** A token that was a recipient's before the sender removed them. */
  recipientTokenWithdrawn(token: string): Promise<boolean>;
  addRecipient(transferId: number, r: NewRecipient, now: number): Promise<number>;
  deleteRecipient(id: number, now: number): Promise<void>;
  touchRecipient(recipientId: number, now: number): Promise<void>;
  /** Records files received whole; true when the recipient now has every file and did not before. */
  markReceived(recipientId: number, fileIds: number[], allFileIds: number[], now: number): Promise<boolean>;
}

export interface AuditRepository {
  /** Records the entry (nothing when the audit log is turned off). */
  record(e: AuditEntry): Promise<void>;
  /** The same for several entries, in as few statements as the database allows. */
  recordMany(entries: AuditEntry[]): Promise<void>;
  forTransfer(transferId: number): Promise<AuditEntry[]>;
}

/** The addresses a user sent to, most recent first (spec: GET /user/@me/frequent_recipients). */
export interface FrequentRecipientRepository {
  /** The addresses move to the top of the user's list (compared case-insensitively, kept lower-cased). */
  remember(userId: string, emails: string[], now: number): Promise<void>;
  /** Most recent first; `contains` filters case-insensitively and literally. */
  list(userId: string, contains: string | null, limit: number): Promise<string[]>;
}

export type NewGuest = Omit<Guest, 'id' | 'status' | 'transferCount' | 'lastActivity' | 'closed' | 'errors'>;

export interface GuestRepository {
  insert(g: NewGuest): Promise<Guest>;
  find(id: number): Promise<Guest | undefined>;
  /** find() holding the row until the unit of work ends. */
  lock(id: number): Promise<Guest | undefined>;
  /** The Guest holding this token (guest-token authentication); closed ones too, the caller decides. */
  findByToken(token: string): Promise<Guest | undefined>;
  /** Open Guests of one user, newest first. */
  listOpenOf(userId: string): Promise<Guest[]>;
  /** Every open Guest, newest first (admin view). */
  listOpen(): Promise<Guest[]>;
  /** One page of listOpen(): by key (`after` a Guest's id: the older ones) or by offset, read from the index. */
  listOpenPage(page: Page): Promise<Guest[]>;
  /** Open Guests whose expiry has passed (does_not_expire Guests never match). */
  listExpired(now: number): Promise<Guest[]>;
  /** Closes an open Guest; false when it was already closed (so a concurrent closer does not mail twice). */
  close(id: number, now: number): Promise<boolean>;
  incrementTransferCount(id: number): Promise<void>;
  touch(id: number, now: number): Promise<void>;
  /** Transfers the Guest made that count against valid_only_one_time: open ones, or ever made available. */
  countTransfersUsed(guestId: number): Promise<number>;
}

/** A user as stored: created on first authenticated sight, with the preferences of the spec's object. */
export interface UserRecord {
  id: string;
  lang: string | null;
  aupTicked: boolean;
  transferPreferences: string[];
  guestPreferences: string[];
  additionalAttributes: Record<string, unknown>;
  created: number;
  lastActivity: number | null;
}

export interface UserSummary {
  id: string;
  emails: string[];
  local: boolean;
  dbAdmin: boolean;
  /** Whose the account is, as in AccountOwner. */
  provider: string | null;
  providerAdmin: boolean;
  links: string[];
}

export interface UserRepository {
  /** Creates or refreshes the user; when emails are given they replace the stored list. Returns the stored e-mails. */
  upsertSeen(id: string, emails: string[], now: number): Promise<string[]>;
  record(id: string): Promise<UserRecord | undefined>;
  emails(id: string): Promise<string[]>;
  setEmails(id: string, emails: string[]): Promise<void>;
  listIds(): Promise<string[]>;
  /**
   * A page of users in the order of their ids (all of them when page is null), each with its e-mails, whether
   * it has a local account and whether the admins table names it: a few statements a page, whatever its size.
   */
  listPage(page: Page | null): Promise<UserSummary[]>;
  remoteSecret(id: string): Promise<string | null>;
  setRemoteSecret(id: string, secret: string | null): Promise<void>;
  setLang(id: string, lang: string | null): Promise<void>;
  /** The user's language as stored (null: none, or no such user); a node may answer from the last second's read. */
  lang(id: string): Promise<string | null>;
  isDbAdmin(id: string): Promise<boolean>;
  addAdmin(id: string, now: number): Promise<boolean>;
  removeAdmin(id: string): Promise<boolean>;
  listAdmins(): Promise<string[]>;
  setDisplayName(id: string, name: string | null): Promise<void>;
  /**
   * Whose the account is (src/domain/sign-in.ts); undefined when there is no such user. May be what this node
   * read in the last second, unless `fresh`.
   */
  owner(id: string, fresh?: boolean): Promise<AccountOwner | undefined>;
  /** Creates the account as `provider`'s unless it exists (one statement: two first sign-ins at once make one). */
  createFor(id: string, provider: string, now: number): Promise<void>;
  /** Attributes an account no provider is recorded for to `provider`; false when it has one already. */
  adopt(id: string, provider: string): Promise<boolean>;
  /** What the provider said of admin rights at the last sign-in. */
  setProviderAdmin(id: string, admin: boolean): Promise<void>;
  /** An operator lets another provider sign in to the account (ferry user link); false when it already could. */
  link(id: string, provider: string, now: number): Promise<boolean>;
  unlink(id: string, provider: string): Promise<boolean>;
}

/** Whose an account is: the provider that made it, a local password, the providers an operator linked to it. */
export interface AccountOwner {
  /** auth.sp[].id of the provider that made it ("local" for a local account); null: not attributed. */
  provider: string | null;
  hasPassword: boolean;
  links: string[];
  /** The provider said at the last sign-in that the person is an admin. */
  providerAdmin: boolean;
}

/** Password hashes of the local service provider's accounts. */
export interface LocalAccountRepository {
  passwordHash(userId: string): Promise<string | undefined>;
  setPassword(userId: string, hash: string, now: number): Promise<void>;
  /** Creates the account only when there is no account at all, in one statement (concurrent first starts). */
  createFirst(userId: string, hash: string, now: number): Promise<boolean>;
  userIds(): Promise<string[]>;
  count(): Promise<number>;
  delete(userId: string): Promise<boolean>;
}

/** A browser session, made by an identity provider's sign-in. */
export interface Session {
  /** SHA-256 (hex) of the cookie's token: a copy of the database opens no session. */
  id: string;
  userId: string;
  /** The token POST/PUT/DELETE must carry in X-Ferry-Security-Token. */
  csrfToken: string;
  created: number;
  lastSeen: number;
  /** The identity provider that made it (auth.sp[].id). */
  provider: string;
  /** The provider made the person an admin (a group or role claim). */
  providerAdmin: boolean;
  /** What the provider may name the session by in a logout it starts. */
  providerRef: string | null;
  /** What the provider's own logout needs back (the ID token hint). */
  providerData: string | null;
}

export interface SessionRepository {
  create(s: Session): Promise<void>;
  get(id: string): Promise<Session | undefined>;
  touch(id: string, now: number): Promise<void>;
  delete(id: string): Promise<void>;
  /** Every session of the user, but the one named `exceptId` when given (the one changing its password). */
  deleteOf(userId: string, exceptId?: string): Promise<void>;
  deleteStale(idleBefore: number, createdBefore: number): Promise<number>;
  /** Ends the sessions a provider names (a logout it starts); returns how many. */
  deleteByRef(provider: string, refs: string[]): Promise<number>;
}

/** A remote application (ferry remote-app add): its shared secret, and the previous one during a grace period. */
export interface RemoteApp {
  name: string;
  secret: string;
  oldSecret: string | null;
  /** Until when (UNIX seconds) the old secret is still accepted. */
  oldSecretUntil: number | null;
  isAdmin: boolean;
  created: number;
}

export interface RemoteAppRepository {
  get(name: string): Promise<RemoteApp | undefined>;
  add(name: string, secret: string, isAdmin: boolean, now: number): Promise<boolean>;
  /** The current secret becomes the old one until oldUntil; with null the old one is dropped at once. */
  rotate(name: string, secret: string, oldUntil: number | null): Promise<boolean>;
  list(): Promise<RemoteApp[]>;
  remove(name: string): Promise<boolean>;
}

/** Signatures of signed POST/PUT/DELETE requests, kept until their window has passed (replay refusal). */
export interface SignatureRepository {
  /** Remembers a signature until `expires`; false when it is already remembered and unexpired (a replay). */
  use(signature: string, expires: number, now: number): Promise<boolean>;
  /** Forgets a signature (its request was refused, so it changed nothing and may be sent again). */
  release(signature: string): Promise<void>;
  count(): Promise<number>;
}

/**
 * Timestamped events under a key, shared by every node, as the throttles count them: failed logins per account
 * and client address, link-password tries, and the reminders sent by hand (src/domain/reminder-limits.ts).
 * Kept a day.
 */
export interface LoginFailureRepository {
  /** Inside a unit of work: other units of work counting these keys wait until this one ends (PostgreSQL). */
  hold(keys: string[]): Promise<void>;
  /** Records a failure at `at`; returns its id (to take it back). */
  add(key: string, at: number): Promise<number>;
  /** Failures of the key since `since` (exclusive): how many, and the oldest one's time. */
  window(key: string, since: number): Promise<{ count: number; oldest: number | null }>;
  remove(id: number): Promise<void>;
  clear(key: string): Promise<void>;
}

/** Browsers that signed in to an account before, by the SHA-256 of their device cookie (the login throttle). */
export interface LoginDeviceRepository {
  known(deviceId: string, userId: string): Promise<boolean>;
  /** Records that the device signed in to the user now (or again). */
  remember(deviceId: string, userId: string, now: number): Promise<void>;
}

/** A rendered message, as stored in the queue and handed to the transport. */
export interface OutgoingMessage {
  from: string;
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  lang: string;
}

export type TrackingTarget = 'Recipient' | 'Guest';

export interface QueuedMail {
  id: number;
  created: number;
  to: string;
  message: OutgoingMessage;
  attempts: number;
  nextAttempt: number;
  targetType: TrackingTarget | null;
  targetId: number | null;
  /** The node whose claim on it lapsed before this one took it (it died or lost the database), if any. */
  takenFrom?: string | null;
}

/** The outgoing mail queue: rows are pending, then sent or failed, and kept until purge removes them. */
export interface MailQueueRepository {
  enqueue(msg: OutgoingMessage, now: number, target: { type: TrackingTarget; id: number } | null): Promise<number>;
  /**
   * Takes up to `limit` due messages for one delivery attempt each: their next attempt moves to `until`, so
   * no other process or node takes them meanwhile and a crash mid-delivery only delays them.
   */
  claimDue(now: number, until: number, limit: number, node?: string): Promise<QueuedMail[]>;
  /**
   * Extends the claims `node` still holds on `ids` (claimed until `held`) to `until`; returns the ids it still
   * holds (a claim that lapsed and was taken by another node is not taken back).
   */
  renewClaims(ids: number[], node: string, held: number, until: number): Promise<number[]>;
  /** Seconds until the next pending message is due, or null when none is pending. */
  nextDue(now: number): Promise<number | null>;
  markSent(id: number, now: number): Promise<void>;
  markRetry(id: number, next: number, error: string): Promise<void>;
  markFailed(id: number, error: string): Promise<void>;
  counts(): Promise<Record<string, number>>;
  /**
   * Queues the latest mail to a target again, due now and with a fresh retry window, when it was deferred or
   * bounced; false (nothing changed) when it was queued, sent, or there is none.
   */
  requeueUndelivered(target: TrackingTarget, targetId: number, now: number): Promise<boolean>;
  deliveryFor(target: TrackingTarget, ids: number[]): Promise<Map<number, MailDelivery>>;
}

/** What became of the latest mail to each of many targets (lists of transfers), keyed by target id. */
export type MailDeliveryReader = Pick<MailQueueRepository, 'deliveryFor'>;

/** Delivery problems (bounces) recorded against a Recipient or Guest, shown in their `errors`. */
export interface TrackingErrorRepository {
  add(target: TrackingTarget, targetId: number, error: TrackingError): Promise<void>;
  forTarget(target: TrackingTarget, targetId: number): Promise<TrackingError[]>;
  /** Errors of many targets at once (lists of transfers), keyed by target id. */
  forTargets(target: TrackingTarget, ids: number[]): Promise<Map<number, TrackingError[]>>;
}

/** The queries of the purge pass. */
export interface PurgeRepository {
  /**
   * Ids of the Transfers not closed whose expiry has come, in the order of their ids: ids only, so that a pass
   * over many holds little (docs/architecture.md, Purge).
   */
  expiredOpenTransfers(now: number): Promise<number[]>;
  /** Ids of the Transfers never made available, created before the cut-off (abandoned uploads). */
  abandonedTransfers(createdBefore: number): Promise<number[]>;
  /** Ids of the Transfers closed before the cut-off. */
  closedBefore(closedBefore: number): Promise<number[]>;
  /** Deletes a Transfer's records: files, recipients, audit log and tracking errors. */
  deleteTransferRecords(id: number): Promise<void>;
  /** The same for several Transfers, in one transaction. */
  deleteTransfersRecords(ids: number[]): Promise<void>;
  /** Store uploads still recorded for files deleted or of closed Transfers (an abort cut short by a crash). */
  deadStoreUploads(): Promise<{ transferId: number; fileId: number; uid: string; upload: string }[]>;
  /**
   * `${transferId}/${uid}` of file data that should still exist among these Transfers': live files of Transfers
   * that are not closed. Asked a batch of Transfers at a time, never for every file at once.
   */
  liveFileKeys(transferIds: number[]): Promise<Set<string>>;
  deleteOldRows(cutoff: number, now: number): Promise<Record<string, number>>;
  countOldRows(cutoff: number, now: number): Promise<Record<string, number>>;
}

/** PUT /config overrides, as JSON values, one per key. */
export interface OverrideRepository {
  load(): Promise<Record<string, unknown>>;
  save(values: Record<string, unknown>): Promise<void>;
}

/** A transfer as the usage overview counts it: when, by whom, how many bytes (its files' declared sizes). */
export interface TransferUsage {
  userId: string;
  created: number;
  bytes: number;
}

/** What the admins' overview counts (src/domain/usage.ts, `counts`), each in one statement on the database. */
export interface ListCounts {
  /** Every transfer whose records are kept, as GET /transfer/@all lists them. */
  transfers: number;
  /** Transfers neither closed nor past their expiry. */
  liveTransfers: number;
  /** Guests still open (status available), as GET /guest/@all lists them. */
  guests: number;
  users: number;
  /** Users with a local account (what the Users tab lists on an instance that signs users in itself). */
  localUsers: number;
}

/** Quotas and usage figures (src/domain/usage.ts). "Open" transfers: created, started, uploading, available. */
export interface UsageRepository {
  /** The admins' overview figures at `now`. */
  counts(now: number): Promise<ListCounts>;
  /** Inside a unit of work: waits for other quota checks of the same keys to commit (a user's id, "host"). */
  holdQuota(keys: string[]): Promise<void>;
  /** Declared bytes of the files (not deleted) of open transfers: one user's, or everyone's (null). */
  openBytes(userId: string | null): Promise<number>;
  /** The same, for each of these users that has any (one page of the admins' list of users). */
  openBytesOf(userIds: string[]): Promise<Map<string, number>>;
  /**
   * The same per user, summed from the files themselves rather than read from the running totals: what the
   * totals must equal (tests, and a check an operator can run).
   */
  recountOpenBytes(): Promise<Map<string, number>>;
  /** The user's own quota (null: the config's user_quota applies). */
  quotaOf(userId: string): Promise<number | null>;
  /** False when there is no such user. */
  setQuota(userId: string, bytes: number | null): Promise<boolean>;
  /** Every user with a quota of their own. */
  quotas(): Promise<Map<string, number>>;
  /** Transfers created at or after `since` (any status, while their records are kept). */
  transfersSince(since: number): Promise<TransferUsage[]>;
  /** The day's storage sample (YYYY-MM-DD, UTC), replacing an earlier one of the same day. */
  recordStorage(day: string, bytes: number, now: number): Promise<void>;
  storageSince(day: string): Promise<{ day: string; bytes: number }[]>;
}

/**
 * The sharing controls' records (docs/sharing.md): a transfer's download limit and link password hash, the
 * downloads each link claims, and the automatic reminders sent. Claims and reminders are rows in the
 * database, so every node and a cron purge see the same ones.
 */
export interface SharingControls {
  downloadLimit: number | null;
  /** scrypt hash of the link password (src/domain/link-password.ts), or null. */
  passwordHash: string | null;
}

/**
 * A copy of one file downloaded by one link (docs/sharing.md, Download limits): the byte ranges its responses
 * sent, the bytes they sent again, and the lease of the response sending on it now, if any; done once every
 * byte of the file has been sent.
 */
export interface DownloadClaim {
  id: number;
  fileId: number;
  claimed: number;
  done: number | null;
  /** [start, end) ranges of the file sent on this claim (sorted, merged); of a done claim: all of it. */
  sent: [number, number][];
  resent: number;
  /** Until when (seconds) a response holds it; a time past means no response does. */
  leaseUntil: number;
}

/** What a response's bytes did to a claim: written at its end and while it sends (which renews the lease). */
export interface ClaimProgress {
  sent: [number, number][];
  resent: number;
  /** When every byte of the file was sent (the copy counts), else null. */
  done: number | null;
  /** The lease renewed until then; null: the response ended and lets the claim go. */
  leaseUntil: number | null;
}

/** A Transfer's sharing controls and its completed downloads, as its owner is shown them. */
export interface SharingView {
  controls: SharingControls;
  /** Completed downloads per recipient and file. */
  counts: { recipientId: number; fileId: number; done: number }[];
}

export interface SharingRepository {
  controls(transferId: number): Promise<SharingControls>;
  setControls(transferId: number, c: SharingControls): Promise<void>;
  /** Inside a unit of work: holds the link until the unit of work ends, so two claims by one link queue. */
  holdLink(recipientId: number): Promise<void>;
  /** Every claim of the link on these files, oldest first. */
  claims(recipientId: number, fileIds: number[]): Promise<DownloadClaim[]>;
  /** A new claim, held by the response whose token is `lease` until `until`. */
  claim(recipientId: number, fileId: number, now: number, lease: string, until: number): Promise<number>;
  /** A claim no response holds is taken by this one (a resumed download). */
  take(id: number, lease: string, until: number): Promise<void>;
  /**
   * Records a response's progress on the claim it holds; false when it no longer holds it (its lease lapsed
   * and another response took the claim), in which case nothing is written.
   */
  record(id: number, lease: string, p: ClaimProgress): Promise<boolean>;
  /** Completed downloads per recipient and file, for the owner's view. */
  doneCounts(transferId: number): Promise<{ recipientId: number; fileId: number; done: number }[]>;
  /** controls() and doneCounts() of many transfers at once (a page of the owner's list), in two statements. */
  viewsOf(transferIds: number[]): Promise<Map<number, SharingView>>;
  /** Available transfers expiring after `now` and by `until`: those an automatic reminder may be due for. */
  remindableTransfers(now: number, until: number): Promise<Transfer[]>;
  /** The transfer's recipients that have received every one of these files whole. */
  recipientsWithAll(transferId: number, fileIds: number[]): Promise<Set<number>>;
  /**
   * Records that the automatic reminder of `days` before expiry goes to the target; false when it already
   * had (another node or a purge run took it). Inside the unit of work that queues the mail.
   */
  claimReminder(targetType: 'Recipient' | 'Guest', targetId: number, days: number, now: number): Promise<boolean>;
  /** The automatic reminders sent to these targets, oldest first. */
  remindersOf(
    targetType: 'Recipient' | 'Guest',
    targetIds: number[],
  ): Promise<{ targetId: number; days: number; sent: number }[]>;
}

/** A scan's state, kept beside the transfer: checking → clean | infected | held (→ checking again) | not_scanned. */
export type ScanState = 'checking' | 'held' | 'clean' | 'infected' | 'not_scanned';

export interface VirusScanRecord {
  transferId: number;
  state: ScanState;
  started: number;
  finished: number | null;
  /** Why the scan failed (held, or went on unscanned); null otherwise. */
  error: string | null;
  findings: { fileId: number; signature: string }[];
}

/** The scans of completed transfers; a row claimed in the database so one node scans each transfer. */
export interface VirusScanRepository {
  /** Inside the completion's unit of work: the transfer waits for its scan. */
  begin(transferId: number, now: number): Promise<void>;
  find(transferId: number): Promise<VirusScanRecord | undefined>;
  /** The scans of many transfers at once (a page of a list), by transfer id; a transfer never scanned is absent. */
  findMany(transferIds: number[]): Promise<Map<number, VirusScanRecord>>;
  /**
   * Claims a scan that is due (checking, or held with its next try at or before `dueBy`) for this caller
   * until `until`; another node may take it over after that. Returns the transfer id, and whether another
   * caller's claim on it had lapsed (taken over from a node that died or lost the database), or undefined.
   */
  claim(now: number, until: number, dueBy: number): Promise<{ transferId: number; lapsed: boolean } | undefined>;
  /** The claimant keeps its claim while it scans: the claim now lasts until `until` (nothing when settled). */
  renew(transferId: number, until: number): Promise<void>;
  /** When the earliest claim still running (at or after `now`) lapses, or undefined when none runs. */
  nextLapse(now: number): Promise<number | undefined>;
  /** The scan ended: clean, infected (with the findings) or not_scanned (with why). */
  finish(
    transferId: number,
    state: 'clean' | 'infected' | 'not_scanned',
    now: number,
    error: string | null,
    findings: { fileId: number; signature: string }[],
  ): Promise<void>;
  /** The scan failed and waits: tried again from `retryAt`. */
  hold(transferId: number, retryAt: number, error: string): Promise<void>;
  /** Transfer ids of held scans of transfers not closed (the admins' to-do). */
  held(): Promise<number[]>;
}

/** What `ferry import filesender` brings over under its FileSender ids (docs/moving-from-filesender.md). */
export type ImportedKind = 'transfer' | 'guest';

/** A download finished by a recipient: its file counts as received (recipient_downloads). */
export interface ReceivedFile {
  recipientId: number;
  fileId: number;
  date: number;
}

/**
 * The writes of an import: records inserted with the ids they had in the system they come from, so links
 * naming them (`files_ids`, `/transfer/{id}`) keep working, each marked as imported so a second run continues.
 */
export interface ImportRepository {
  /** Transfers and guests that no import brought: a ferry already in use. */
  otherRecords(): Promise<{ transfers: number; guests: number }>;
  /** The ids of this kind already imported. */
  imported(kind: ImportedKind): Promise<Set<number>>;
  /** Which of these ids, tokens or file uids ferry already holds (in another record than an imported one). */
  taken(what: 'transfer' | 'file' | 'recipient' | 'guest', ids: number[]): Promise<number[]>;
  tokensTaken(what: 'recipient' | 'guest', tokens: string[]): Promise<string[]>;
  uidsTaken(uids: string[]): Promise<string[]>;
  /** Inserts the Guest under its id and marks it imported from `source`. */
  insertGuest(g: Guest, source: string, now: number): Promise<void>;
  /** Inserts the Transfer, its files (nothing received yet) and recipients under their ids, marked imported. */
  insertTransfer(t: Transfer, files: FileRecord[], recipients: Recipient[], source: string, now: number): Promise<void>;
  /** Records files as received whole by recipients; those already recorded are left. */
  recordReceived(rows: ReceivedFile[]): Promise<void>;
  /** The Transfer's status once its files are in (`made_available` as the source recorded it). */
  setImportedStatus(id: number, status: Transfer['status'], madeAvailable: number | null): Promise<void>;
  /**
   * After rows were inserted with their own ids: new rows are numbered past them, and past `floor` (the ids the
   * source gave to records that did not come), so no new record takes an id an old link names.
   */
  moveSequences(floor: { transfers: number; files: number; recipients: number; guests: number }): Promise<void>;
}

/**
 * Everything a list of Transfers is shown with beside their files and recipients, read at once: what
 * SharingRepository.viewsOf, VirusScanRepository.findMany and, for the Transfers' recipients,
 * TrackingErrorRepository.forTargets and MailQueueRepository.deliveryFor give (docs/architecture.md, "Lists and
 * pages"). Most Transfers have none of it but their mail states, and five statements for it were a quarter of a
 * list page's cost (docs/performance.md, "Scale").
 */
export interface TransferExtras {
  /** By Transfer id, every id given. */
  sharing: Map<number, SharingView>;
  /** By Transfer id; a Transfer never scanned is absent. */
  scans: Map<number, VirusScanRecord>;
  /** By recipient id: the bounces and other delivery errors of the Transfers' recipients. */
  errors: Map<number, TrackingError[]>;
  /** By recipient id: what became of the latest mail to each. */
  delivery: Map<number, MailDelivery>;
}

/**
 * TransferExtras with the Transfers' live files and recipients, each in id order (what TransferRepository.filesOf
 * and recipientsOf give).
 */
export interface TransferRowsAndExtras extends TransferExtras {
  files: FileRecord[];
  recipients: Recipient[];
}

export interface TransferExtrasRepository {
  of(transferIds: number[]): Promise<TransferExtras>;
  /**
   * The same, and the Transfers' files and recipients with it: a page's one read beside the page's own, where
   * separate reads of its files and recipients were two more round trips (docs/performance.md, "Scale").
   */
  withRowsOf(transferIds: number[]): Promise<TransferRowsAndExtras>;
  /**
   * One page of an owner's Transfers as TransferRepository.listPage reads it, and withRowsOf's read of them, in
   * one statement: a page is one round trip.
   */
  pageWithRows(owner: TransferOwner, page: Page): Promise<TransferPageRead>;
}

/** A page of Transfers, newest first, with all withRowsOf gives about them. */
export interface TransferPageRead extends TransferRowsAndExtras {
  transfers: Transfer[];
}

/** Every repository, as one set: the root set (no transaction) and each unit of work's set share this shape. */
export interface Repositories {
  transfers: TransferRepository;
  transferExtras: TransferExtrasRepository;
  audit: AuditRepository;
  frequentRecipients: FrequentRecipientRepository;
  guests: GuestRepository;
  users: UserRepository;
  localAccounts: LocalAccountRepository;
  sessions: SessionRepository;
  remoteApps: RemoteAppRepository;
  signatures: SignatureRepository;
  loginFailures: LoginFailureRepository;
  loginDevices: LoginDeviceRepository;
  mailQueue: MailQueueRepository;
  trackingErrors: TrackingErrorRepository;
  purge: PurgeRepository;
  overrides: OverrideRepository;
  usage: UsageRepository;
  sharing: SharingRepository;
  virusScans: VirusScanRepository;
  imports: ImportRepository;
}
