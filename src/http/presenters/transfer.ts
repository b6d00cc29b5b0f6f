import type { AuditEntry, FileRecord, MailDelivery, Recipient, Transfer } from '../../domain/model';
import { encryptedSize } from '../../shared-crypto/format';
import { presentTrackingError } from './guest';
import type { TransferView } from '../../domain/transfers';
import { missingRanges } from '../../shared/ranges';
import { presentDate } from './date';

/**
 * The spec's File object, plus extension fields: mime_type, received, ranges, complete, sha256, and `puid`,
 * FileSender 3's name for the uid (its client sends it back as the chunk key).
 */
export function presentFile(f: FileRecord, cid?: string) {
  return {
    id: f.id,
    transfer_id: f.transferId,
    uid: f.uid,
    puid: f.uid,
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
    // End-to-end encrypted files: the IV and AEAD the uploader sent (docs/encryption.md); sha256 is the ciphertext's.
    ...(f.iv !== null ? { iv: f.iv, aead: f.aead } : {}),
  };
}

/**
 * A Transfer's encryption parameters under the names POST /transfer takes them, so a client gets back what
 * it sent, plus the server's `salt`. Never a password or key: the server has neither.
 */
export function presentTransferEncryption(t: Transfer) {
  const e = t.encryption;
  if (!e) return { encryption: false };
  return {
    encryption: true,
    salt: e.salt,
    encryption_key_version: e.keyVersion,
    encryption_password_version: e.passwordVersion,
    encryption_password_encoding: e.passwordEncoding,
    encryption_password_hash_iterations: e.hashIterations,
    encryption_client_entropy: e.clientEntropy,
    encryption_chunk_size: e.chunkSize,
  };
}

/**
 * A File's encryption fields as FileSender's GET /transfer/fileidsextended lists them (both of its
 * spellings), for a recipient's client to derive the key and decrypt: all null for a plain transfer.
 */
export function presentFileEncryptionExtended(t: Transfer, f: FileRecord) {
  const e = t.encryption;
  const fields = {
    'encrypted-size': e ? encryptedSize(f.size, e.chunkSize) : null,
    'key-version': e ? e.keyVersion : null,
    'key-salt': e ? e.salt : null,
    'password-version': e ? e.passwordVersion : null,
    'password-encoding': e ? e.passwordEncoding : null,
    'password-hash-iterations': e ? e.hashIterations : null,
    'client-entropy': e ? e.clientEntropy : null,
  };
  const underscored = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k.replace(/-/g, '_'), v]));
  return { encrypted: e !== null, ...fields, ...underscored, fileiv: e ? f.iv : null, fileaead: e ? f.aead : null };
}

export function downloadUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/?s=download&token=${encodeURIComponent(token)}`;
}

/**
 * A recipient's mail delivery (extension field `delivery`): the latest mail's state, with the server's
 * answer when it was deferred or bounced; null when none was queued (a link recipient) or purged. With no
 * mail transport the mail "sent" went only to the built-in inbox (docs/architecture.md, Where mail goes):
 * its state is `kept`, never `sent`, so nobody reads that a recipient was told.
 */
export function presentDelivery(d: MailDelivery | null | undefined, lang: string, inbox = false) {
  if (!d) return null;
  const state: MailDelivery['state'] | 'kept' = inbox && d.state === 'sent' ? 'kept' : d.state;
  return {
    state,
    date: presentDate(d.date, lang),
    reason: d.reason,
    attempts: d.attempts,
    next_attempt: presentDate(d.nextAttempt, lang),
  };
}

/** The spec's Recipient object, plus `delivery` (presentDelivery). */
export function presentRecipient(
  r: Recipient,
  baseUrl: string,
  lang: string,
  delivery?: MailDelivery | null,
  inbox = false,
) {
  return {
    id: r.id,
    transfer_id: r.transferId,
    token: r.token,
    email: r.email,
    created: presentDate(r.created, lang),
    last_activity: presentDate(r.lastActivity, lang),
    options: null,
    download_url: downloadUrl(baseUrl, r.token),
    errors: r.errors.map((e) => presentTrackingError(e, lang)),
    delivery: presentDelivery(delivery, lang, inbox),
  };
}

/**
 * The spec's Transfer object (plus status, guest_id, closed as extensions, and FileSender's `roundtriptoken`,
 * which as in FileSender only the answer that created the Transfer carries; other answers give "").
 */
export function presentTransfer(
  v: TransferView,
  baseUrl: string,
  lang: string,
  extensionsLeft: number,
  creating = false,
  delivery = new Map<number, MailDelivery>(),
  inbox = false,
) {
  const t = v.transfer;
  return {
    id: t.id,
    user_id: t.userId,
    user_email: t.userEmail,
    subject: t.subject,
    message: t.message,
    created: presentDate(t.created, lang),
    expires: presentDate(t.expires, lang),
    expiry_date_extension: extensionsLeft,
    options: t.options,
    files: v.files.map((f) => presentFile(f, v.cids?.get(f.id))),
    recipients: v.recipients.map((r) => presentRecipient(r, baseUrl, lang, delivery.get(r.id), inbox)),
    status: t.status,
    guest_id: t.guestId,
    closed: presentDate(t.closed, lang),
    roundtriptoken: creating ? (t.roundtripToken ?? '') : '',
    // Extension: its completion waits for files the store assembles in the background (docs/configuration.md).
    ...(t.completing && t.status !== 'available' ? { completing: true } : {}),
    ...presentTransferEncryption(t),
  };
}

/** The spec's Audit log entry. */
export function presentAuditEntry(e: AuditEntry, lang: string) {
  return {
    date: presentDate(e.date, lang),
    event: e.event,
    author: {
      type: e.author.type,
      id: e.author.id,
      ip: e.author.ip ?? '',
      ...(e.author.email ? { email: e.author.email } : {}),
    },
    target: e.target,
    // ferry's extension: what the event found (a virus scan's signature, why a scan failed)
    ...(e.detail ? { detail: e.detail } : {}),
  };
}

/**
 * One File as FileSender's GET /transfer/fileidsextended lists it for a recipient's client, which saves the
 * file under `name` (split on "/" into folders): the same safe, unique relative path the archive download
 * uses. The encryption fields (both spellings FileSender uses) are what the client needs besides the password
 * to derive the key and decrypt; all null for a plain transfer.
 */
export function presentFileExtended(t: Transfer, f: FileRecord, safeName: string) {
  return {
    id: f.id,
    mime: f.mimeType ?? 'application/octet-stream',
    name: safeName,
    size: f.size,
    ...presentFileEncryptionExtended(t, f),
    transferid: f.transferId,
  };
}
