/**
 * The domain objects every part of ferry shares. Repositories (src/db) return these; presenters (src/http)
 * turn them into the spec's JSON; notifications (src/mail) render them. Times are UNIX seconds.
 * src/db and src/storage may import these types (type-only) although they sit below domain in the layout.
 */
export type TransferStatus = 'created' | 'started' | 'uploading' | 'available' | 'closed';

export interface Transfer {
  id: number;
  /** Owner: the user who created it, or the user who invited the guest that created it. */
  userId: string;
  /** Sender address: the user's chosen `from`, or the guest's e-mail. */
  userEmail: string;
  guestId: number | null;
  subject: string | null;
  message: string | null;
  options: string[];
  status: TransferStatus;
  lang: string | null;
  created: number;
  expires: number;
  expiryExtensionsUsed: number;
  madeAvailable: number | null;
  closed: number | null;
  /** Why it was closed: 'owner', 'expired', 'last_file', 'last_recipient', 'guest_deleted'… */
  closedReason: string | null;
  /**
   * FileSender's round-trip token: random, given only to the client that created the Transfer (in the answer
   * to POST /transfer); a chunk upload or completion that sends one back must send this one. null for
   * Transfers created before it existed.
   */
  roundtripToken: string | null;
  /** End-to-end encryption parameters (never a password or key); null for a plain transfer. */
  encryption: TransferEncryption | null;
  /** Its completion was asked for while files were still being assembled: it becomes available when they are. */
  completing?: boolean;
}

/** What a FileSender-compatible client needs besides the password to decrypt (docs/encryption.md). */
export interface TransferEncryption {
  keyVersion: number;
  passwordVersion: number;
  passwordEncoding: string;
  hashIterations: number;
  /** The uploading client's entropy as it sent it (base64), or null. */
  clientEntropy: string | null;
  /** Made by the server: 32 characters whose ASCII bytes are the PBKDF2 salt. */
  salt: string;
  /** Plaintext chunk size the files were encrypted with; each stored chunk is 32 octets longer. */
  chunkSize: number;
}

export interface FileRecord {
  id: number;
  transferId: number;
  uid: string;
  name: string;
  size: number;
  mimeType: string | null;
  cid: string | null;
  /** Bytes stored so far (sum of the received ranges). */
  received: number;
  /** Received byte ranges, half-open [start, end), merged and sorted. */
  ranges: [number, number][];
  complete: boolean;
  crc32: number | null;
  sha256: string | null;
  created: number;
  deleted: number | null;
  /** Encrypted files: the file's IV (base64 of 12 octets) and its AEAD string (base64), as the client sent them. */
  iv: string | null;
  aead: string | null;
  /** The store's upload of this file that every node writes into (S3 multipart), until it is completed. */
  storeUpload: string | null;
  /** Every byte is in and its completion was asked for: the store is assembling it in the background. */
  assembling?: boolean;
}

export interface TrackingError {
  type: string;
  date: number;
  details: string;
}

/**
 * What became of the latest mail to a Recipient (or Guest): waiting in the queue, deferred (the server
 * answered 4xx or could not be reached; retried), bounced (refused with 5xx, or given up), or sent (handed
 * to the transport).
 */
export interface MailDelivery {
  state: 'queued' | 'deferred' | 'bounced' | 'sent';
  /** When it was queued, or when it was sent. */
  date: number;
  /** The server's answer or the error of the last failed attempt (deferred, bounced). */
  reason: string | null;
  attempts: number;
  /** Deferred: when the next attempt is due. */
  nextAttempt: number | null;
}

export interface Recipient {
  id: number;
  transferId: number;
  /** Empty for the link recipient of a get_a_link Transfer. */
  email: string;
  token: string;
  lang: string | null;
  created: number;
  lastActivity: number | null;
  deleted: number | null;
  errors: TrackingError[];
}

export type GuestStatus = 'available' | 'closed';

export interface Guest {
  id: number;
  userId: string;
  userEmail: string;
  email: string;
  token: string;
  subject: string | null;
  message: string | null;
  options: string[];
  transferOptions: string[];
  status: GuestStatus;
  transferCount: number;
  lang: string | null;
  created: number;
  /** null when the guest does_not_expire. */
  expires: number | null;
  lastActivity: number | null;
  closed: number | null;
  errors: TrackingError[];
}

export type AuthorType = 'User' | 'Recipient' | 'Guest';
export type TargetType = 'Transfer' | 'File' | 'Recipient';

export interface AuditEntry {
  transferId: number;
  date: number;
  event: string;
  author: { type: AuthorType; id: string; ip: string | null; email?: string | null };
  target: { type: TargetType; id: string; name?: string; size?: number; email?: string };
  /** What the event found, where it says more than its target: the signature clamd named (docs/sharing.md). */
  detail?: string;
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
