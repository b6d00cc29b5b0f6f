import type { AuditEntry, FileRecord, Recipient } from '../../domain/model';
import { presentTrackingError } from './guest';
import type { TransferView } from '../../domain/transfers';
import { missingRanges } from '../../domain/ranges';
import { presentDate } from './date';

/** The spec's File object, plus extension fields: mime_type, received, ranges, complete, sha256. */
export function presentFile(f: FileRecord, cid?: string) {
  return {
    id: f.id,
    transfer_id: f.transferId,
    uid: f.uid,
    name: f.name,
    size: f.size,
    sha1: null,
    ...(cid !== undefined ? { cid } : {}),
    mime_type: f.mimeType,
    received: f.received,
    ranges: f.ranges,
    missing: missingRanges(f.ranges, f.size),
    complete: f.complete,
    sha256: f.sha256,
  };
}

export function downloadUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/?s=download&token=${encodeURIComponent(token)}`;
}

/** The spec's Recipient object. */
export function presentRecipient(r: Recipient, baseUrl: string) {
  return {
    id: r.id,
    transfer_id: r.transferId,
    token: r.token,
    email: r.email,
    created: presentDate(r.created),
    last_activity: presentDate(r.lastActivity),
    options: null,
    download_url: downloadUrl(baseUrl, r.token),
    errors: r.errors.map(presentTrackingError),
  };
}

/** The spec's Transfer object (plus status, guest_id, closed as extensions). */
export function presentTransfer(v: TransferView, baseUrl: string, extensionsLeft: number) {
  const t = v.transfer;
  return {
    id: t.id,
    user_id: t.userId,
    user_email: t.userEmail,
    subject: t.subject,
    message: t.message,
    created: presentDate(t.created),
    expires: presentDate(t.expires),
    expiry_date_extension: extensionsLeft,
    options: t.options,
    files: v.files.map((f) => presentFile(f, v.cids?.get(f.id))),
    recipients: v.recipients.map((r) => presentRecipient(r, baseUrl)),
    status: t.status,
    guest_id: t.guestId,
    closed: presentDate(t.closed),
  };
}

/** The spec's Audit log entry. */
export function presentAuditEntry(e: AuditEntry) {
  return {
    date: presentDate(e.date),
    event: e.event,
    author: { type: e.author.type, id: e.author.id, ip: e.author.ip ?? '', ...(e.author.email ? { email: e.author.email } : {}) },
    target: e.target,
  };
}
