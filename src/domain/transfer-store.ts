import type { AuditEntry, FileRecord, Recipient, Transfer, TransferStatus } from './model';

export type NewTransfer = Pick<Transfer, 'userId' | 'userEmail' | 'guestId' | 'subject' | 'message' | 'options' | 'lang' | 'created' | 'expires' | 'roundtripToken'> &
  Partial<Pick<Transfer, 'encryption'>>;
export type NewFile = Pick<FileRecord, 'uid' | 'name' | 'size' | 'mimeType' | 'cid'> & Partial<Pick<FileRecord, 'iv' | 'aead'>>;
export interface NewRecipient {
  email: string;
  token: string;
  lang: string | null;
}

/** What the transfer services need from storage; src/db/transfers-repo.ts implements it. */
export interface TransferStore {
  transaction<T>(fn: () => T): T;
  create(t: NewTransfer, files: NewFile[], recipients: NewRecipient[]): number;
  find(id: number): Transfer | undefined;
  listOfUser(userId: string): Transfer[];
  listOfGuest(guestId: number): Transfer[];
  listAll(): Transfer[];
  setStatus(id: number, status: TransferStatus, now: number, reason?: string | null): void;
  markUploading(id: number): boolean;
  extendExpiry(id: number, expires: number): void;
  files(transferId: number): FileRecord[];
  findFile(id: number): FileRecord | undefined;
  fileUids(transferId: number): string[];
  /** Merges a written range; undefined (nothing recorded) when the File is deleted or its Transfer closed. */
  recordRange(fileId: number, start: number, end: number): FileRecord | undefined;
  /** Marks a File complete with its digests; false when it is deleted or its Transfer closed meanwhile. */
  completeFile(fileId: number, crc32: number, sha256: string): boolean;
  deleteFile(fileId: number, now: number): void;
  recipients(transferId: number): Recipient[];
  findRecipient(id: number): Recipient | undefined;
  addRecipient(transferId: number, r: NewRecipient, now: number): number;
  deleteRecipient(id: number, now: number): void;
}

export interface AuditLog {
  record(e: AuditEntry): void;
  forTransfer(transferId: number): AuditEntry[];
}

/** Who acts on a Transfer: for `from` rules, ownership of what is created, and the audit log's author. */
export interface Actor {
  type: 'user' | 'guest' | 'application';
  /** User id, guest id or application name (a chunk key acts as the Transfer's uploader). */
  id: string;
  emails: string[];
  ip: string | null;
  /** Service Provider users must send from one of their own addresses; remote modes are only format-checked. */
  fromMustBeOwn: boolean;
  guestId: number | null;
}
