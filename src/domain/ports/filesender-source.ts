import type { Readable } from 'node:stream';

/**
 * A FileSender installation to import from (`ferry import filesender`, docs/moving-from-filesender.md): its
 * database and its stored files, read only. The adapter (src/db/filesender/) reads FileSender 3.8's tables; the rows
 * come here already in ferry's terms where the meaning is the same (UNIX seconds, user ids as the identity
 * provider gave them), and raw where the import decides (options, statuses, encryption fields).
 */

/** A user: `userpreferences` joined to `authentications` (the uid the identity provider gave). */
export interface FsUser {
  /** FileSender's own row id (transfers and guests name their owner by it). */
  rowId: number;
  uid: string;
  lang: string | null;
  /** The API secret of filesender.py.ini (`auth_secret`). */
  secret: string | null;
  created: number;
  lastActivity: number | null;
}

export interface FsFile {
  id: number;
  uid: string;
  name: string;
  mimeType: string | null;
  size: number;
  /** Bytes stored of an encrypted file (FileSender records it for plain files too, where it means nothing). */
  encryptedSize: number | null;
  iv: string | null;
  aead: string | null;
  /** The folder FileSender recorded for the file, when it keeps one (`storage_filesystem_explicitly_store_subpath_per_file`). */
  storagePath: string | null;
}

export interface FsRecipient {
  id: number;
  email: string;
  token: string;
  created: number;
  lastActivity: number | null;
}

export interface FsTransfer {
  id: number;
  /** The owner's row id in `userpreferences`. */
  userRowId: number;
  userEmail: string;
  guestId: number | null;
  lang: string | null;
  subject: string | null;
  message: string | null;
  created: number;
  madeAvailable: number | null;
  expires: number;
  expiryExtensions: number;
  status: string;
  /** `options` as FileSender stores it: an object of option name → value (or a list of names). */
  options: unknown;
  keyVersion: number;
  salt: string | null;
  passwordVersion: number;
  /** 0 none, 1 base64, 2 ascii85 (FileSender's DBConstantPasswordEncoding). */
  passwordEncoding: number;
  passwordHashIterations: number;
  clientEntropy: string | null;
  roundtripToken: string | null;
  chunkSize: number;
  cryptedChunkSize: number;
  /** Per-day/per-hour buckets of the storage layout (their folder names come from the file uid or `created`). */
  dayBuckets: boolean;
  hourBuckets: boolean;
  files: FsFile[];
  recipients: FsRecipient[];
}

export interface FsGuest {
  id: number;
  userRowId: number;
  userEmail: string;
  email: string;
  token: string;
  subject: string | null;
  message: string | null;
  options: unknown;
  transferOptions: unknown;
  status: string;
  transferCount: number;
  created: number;
  expires: number | null;
  lastActivity: number | null;
}

/** A download a recipient finished (FileSender's audit log: `download_ended` by a Recipient of a File). */
export interface FsDownload {
  transferId: number;
  recipientId: number;
  fileId: number;
  date: number;
}

/** The largest ids in use per kind of record. */
export interface IdFloor {
  transfers: number;
  files: number;
  recipients: number;
  guests: number;
}

/** Raised for a source that cannot be read as asked: a wrong URL, an unknown schema, no storage folder. */
export class SourceRefused extends Error {}

export interface FileSenderSource {
  /** Where it reads, for the report (the URL without its password, the storage folder). */
  describe(): string;
  /** The schema version FileSender recorded (`metadatas`), after checking the tables and columns the import reads. */
  schemaVersion(): Promise<number>;
  users(): Promise<FsUser[]>;
  /** Transfers whose status is one of these and that expire after `now`, with their files and recipients. */
  transfers(statuses: string[], now: number): Promise<FsTransfer[]>;
  /** Guests whose status is one of these, not expired at `now`. */
  guests(statuses: string[], now: number): Promise<FsGuest[]>;
  /** Every address a user sent from or invited guests from, newest first, by user row id. */
  senderAddresses(): Promise<Map<number, string[]>>;
  downloads(transferIds: number[]): Promise<FsDownload[]>;
  /** The largest id FileSender gave in each table, imported or not. */
  maxIds(): Promise<IdFloor>;
  /** The stored bytes of a file: its size on disk, or null when no stored file is found for it. */
  storedSize(t: FsTransfer, f: FsFile): Promise<number | null>;
  /** Reads bytes [start, end) of a stored file. */
  read(t: FsTransfer, f: FsFile, start: number, end: number): Readable;
  close(): Promise<void>;
}
