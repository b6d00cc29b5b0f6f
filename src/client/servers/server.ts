import type { Range } from '../../shared/ranges';
import type { FerryApi } from '../http';

/**
 * The seam between the client's flows (send, get, guest) and the server kinds it speaks to: ferry, or any
 * FileSender 3.x. Both have FileSender's REST interface, but not the same parts of it: each kind is one module
 * (ferry.ts, filesender.ts) implementing this, chosen by detect.ts from what the server says of itself.
 */
export type ServerKind = 'ferry' | 'filesender';

/** What the server lets a transfer be, read before anything is created. */
export interface ServerSettings {
  chunkSize: number;
  /** Limits; null where the server does not say. */
  maxFiles: number | null;
  maxTransferSize: number | null;
  /** Per file (0 on FileSender: no limit). */
  maxFileSize: number | null;
  maxEncryptedFileSize: number | null;
  defaultDays: number | null;
  maxDays: number | null;
  defaultGuestDays: number | null;
  maxGuestDays: number | null;
  encryption: {
    enabled: boolean;
    /** The server takes encrypted transfers only. */
    mandatory: boolean;
    /** PBKDF2 iterations for a new transfer. */
    iterations: number;
    /** Why this client cannot encrypt for the server (another format), or null. */
    unsupported: string | null;
    /** The typed-password rules, as the keys of GET /info name them (checkPasswordRules). */
    rules: Record<string, unknown>;
  };
}

export interface TransferRequest {
  files: { name: string; size: number; mime_type: string; cid: string; iv?: string; aead?: string }[];
  recipients: string[];
  link: boolean;
  from: string;
  subject: string;
  message: string;
  expires: number;
  encryption?: Record<string, unknown>;
  /** ferry's extension (docs/sharing.md): downloads of each file allowed through each link. */
  downloadLimit?: number;
}

export interface ServerFile {
  id: number;
  name: string;
  size: number;
  cid?: string;
  /** What the server holds of the file (ferry tells; FileSender does not). */
  ranges?: Range[];
  complete?: boolean;
}

export interface ServerTransfer {
  id: number;
  salt?: string;
  /** ferry tells it; FileSender's answer has none. */
  status?: string;
  /** FileSender gives it once, with the new transfer; its chunk requests carry it. */
  roundtriptoken?: string;
  /** ferry's virus scan (docs/sharing.md, Virus scanning), when it scans. */
  virus_scan?: { status: string } | null;
  expires?: { raw: number } | null;
  files: ServerFile[];
  recipients: { email: string; download_url: string }[];
}

/** An unfinished transfer as the server still has it, or why it cannot be carried on. */
export type Unfinished =
  | { state: 'open' | 'done'; transfer: ServerTransfer }
  | { state: 'gone' | 'closed'; why: string };

export interface ChunkRequest {
  fileId: number;
  /** The plaintext offset (the URL's, on both kinds). */
  offset: number;
  /** The plaintext length. */
  length: number;
  fileSize: number;
  body: Buffer;
  encrypted: boolean;
  name: string;
  ahead: () => number;
}

export interface GuestRequest {
  email: string;
  subject?: string;
  message?: string;
  days?: number;
  from?: string;
}

export interface GuestAnswer {
  id: number;
  email: string;
  expires?: { raw: number } | null;
  upload_url?: string;
}

/** One server kind's way of doing what `ferry send` needs. */
export interface SendServer {
  readonly kind: ServerKind;
  readonly api: FerryApi;
  settings(): ServerSettings;
  /** The user's own account (a signed request the server answers any user): checks the credentials. */
  account(what: string): Promise<Record<string, unknown>>;
  /** The sender address: --from, else what the server knows of the account. */
  senderAddress(given: string | undefined): Promise<string>;
  createTransfer(t: TransferRequest): Promise<ServerTransfer>;
  /** The transfer a killed run began, as the server has it now. */
  unfinished(id: number): Promise<Unfinished>;
  /** Whether the server itself tells what it holds of each file (else the client keeps count of its stored chunks). */
  readonly tellsRanges: boolean;
  putChunk(c: ChunkRequest, doneAfterAll: () => Promise<boolean>): Promise<void>;
  /** What the server holds of a file, or null when it cannot tell. */
  storedRanges(fileId: number, name: string): Promise<Range[] | null>;
  completeFile(fileId: number, name: string): Promise<void>;
  completeTransfer(id: number): Promise<ServerTransfer>;
  /** Removes a transfer that will not be carried on (best effort: a failure is reported, not thrown). */
  discardTransfer(id: number): Promise<string | null>;
  inviteGuest(g: GuestRequest): Promise<GuestAnswer>;
  /** The transfer's state keeps the round-trip token of FileSender; restored on resume. */
  roundtripToken: string | undefined;
}
