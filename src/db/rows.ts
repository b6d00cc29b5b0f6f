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

/**
 * The columns of files and of recipients that FileRow and RecipientRow hold (what toFile and toRecipient read),
 * named rather than `*` in the prepared reads (transfers-repo's liveRowsOf says why), and in this order in
 * transfer-extras-repo's JSON arrays (fileRowOf, recipientRowOf).
 */
export const FILE_COLUMNS = [
  'id',
  'transfer_id',
  'uid',
  'name',
  'size',
  'mime_type',
  'cid',
  'received',
  'ranges',
  'complete',
  'crc32',
  'sha256',
  'created',
  'deleted',
  'iv',
  'aead',
  'store_upload',
  'assembly_by',
] as const satisfies readonly (keyof FileRow)[];
export const RECIPIENT_COLUMNS = [
  'id',
  'transfer_id',
  'email',
  'token',
  'lang',
  'created',
  'last_activity',
  'deleted',
] as const satisfies readonly (keyof RecipientRow)[];

/** The columns of transfers, in this order in transfer-extras-repo's JSON arrays (transferRowOf). */
export const TRANSFER_COLUMNS = [
  'id',
  'user_id',
  'user_email',
  'guest_id',
  'subject',
  'message',
  'options',
  'status',
  'lang',
  'created',
  'expires',
  'expiry_extensions_used',
  'made_available',
  'closed',
  'closed_reason',
  'encryption',
  'roundtrip_token',
  'complete_by',
] as const satisfies readonly (keyof TransferRow)[];

/** A transfers row from its values in TRANSFER_COLUMNS' order, as fileRowOf. */
export function transferRowOf(v: any[]): TransferRow {
  return {
    id: v[0],
    user_id: v[1],
    user_email: v[2],
    guest_id: v[3],
    subject: v[4],
    message: v[5],
    options: v[6],
    status: v[7],
    lang: v[8],
    created: v[9],
    expires: v[10],
    expiry_extensions_used: v[11],
    made_available: v[12],
    closed: v[13],
    closed_reason: v[14],
    encryption: v[15],
    roundtrip_token: v[16],
    complete_by: v[17],
  };
}

/**
 * A files row from its values in FILE_COLUMNS' order (transfer-extras-repo's JSON arrays). An object literal, not
 * a loop over the names: each row then has one shape from the start, and building a page's rows key by key was a
 * fifteenth of its CPU (docs/performance.md, "Scale").
 */
export function fileRowOf(v: any[]): FileRow {
  return {
    id: v[0],
    transfer_id: v[1],
    uid: v[2],
    name: v[3],
    size: v[4],
    mime_type: v[5],
    cid: v[6],
    received: v[7],
    ranges: v[8],
    complete: v[9],
    crc32: v[10],
    sha256: v[11],
    created: v[12],
    deleted: v[13],
    iv: v[14],
    aead: v[15],
    store_upload: v[16],
    assembly_by: v[17],
  };
}

/** A recipients row from its values in RECIPIENT_COLUMNS' order, as fileRowOf. */
export function recipientRowOf(v: any[]): RecipientRow {
  return {
    id: v[0],
    transfer_id: v[1],
    email: v[2],
    token: v[3],
    lang: v[4],
    created: v[5],
    last_activity: v[6],
    deleted: v[7],
  };
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
