import type { FileRecord, Recipient, Transfer, TransferEncryption, TransferStatus } from '../domain/model';

/** Row shapes of the transfers, files and recipients tables, and their mapping to domain objects. */
export interface TransferRow {
  id: number;
  user_id: string;
  user_email: string;
  guest_id: number | null;
  subject: string | null;
  message: string | null;
  options: string;
  status: string;
  lang: string | null;
  created: number;
  expires: number;
  expiry_extensions_used: number;
  made_available: number | null;
  closed: number | null;
  closed_reason: string | null;
  encryption: string | null;
  roundtrip_token: string | null;
  complete_by?: string | null;
}

export interface FileRow {
  id: number;
  transfer_id: number;
  uid: string;
  name: string;
  size: number;
  mime_type: string | null;
  cid: string | null;
  received: number;
  ranges: string;
  complete: number;
  crc32: number | null;
  sha256: string | null;
  created: number;
  deleted: number | null;
  iv: string | null;
  aead: string | null;
  store_upload: string | null;
  assembly_by?: string | null;
}

export interface RecipientRow {
  id: number;
  transfer_id: number;
  email: string;
  token: string;
  lang: string | null;
  created: number;
  last_activity: number | null;
  deleted: number | null;
}

export function toTransfer(r: TransferRow): Transfer {
  return {
    id: r.id,
    userId: r.user_id,
    userEmail: r.user_email,
    guestId: r.guest_id,
    subject: r.subject,
    message: r.message,
    options: JSON.parse(r.options) as string[],
    status: r.status as TransferStatus,
    lang: r.lang,
    created: r.created,
    expires: r.expires,
    expiryExtensionsUsed: r.expiry_extensions_used,
    madeAvailable: r.made_available,
    closed: r.closed,
    closedReason: r.closed_reason,
    encryption: r.encryption ? (JSON.parse(r.encryption) as TransferEncryption) : null,
    roundtripToken: r.roundtrip_token ?? null,
    completing: (r.complete_by ?? null) !== null && r.status !== 'available' && r.status !== 'closed',
  };
}

export function toFile(r: FileRow): FileRecord {
  return {
    id: r.id,
    transferId: r.transfer_id,
    uid: r.uid,
    name: r.name,
    size: r.size,
    mimeType: r.mime_type,
    cid: r.cid,
    received: r.received,
    ranges: JSON.parse(r.ranges) as [number, number][],
    complete: r.complete === 1,
    crc32: r.crc32,
    sha256: r.sha256,
    created: r.created,
    deleted: r.deleted,
    iv: r.iv,
    aead: r.aead,
    storeUpload: r.store_upload,
    assembling: r.complete === 0 && (r.assembly_by ?? null) !== null,
  };
}

/** Tracking errors are attached by the caller (they live in their own table). */
export function toRecipient(r: RecipientRow): Recipient {
  return {
    id: r.id,
    transferId: r.transfer_id,
    email: r.email,
    token: r.token,
    lang: r.lang,
    created: r.created,
    lastActivity: r.last_activity,
    deleted: r.deleted,
    errors: [],
  };
}
