import type { AuditEntry, FileRecord, Guest, Recipient, Transfer } from './model';

/**
 * Every e-mail ferry sends, as domain events. The domain decides *when* (spec: Events; design.md §8 options);
 * the mail module decides *how* (templates, language, queue, retries). Implementations must never throw
 * for a delivery problem: mail is queued and retried, and a refused address becomes a Tracking error.
 */
export interface Notifier {
  /** Transfer made available (or a recipient added to an available Transfer): one mail per recipient. */
  transferAvailable(transfer: Transfer, files: FileRecord[], recipients: Recipient[]): void;
  /** Copy to the sender when email_me_copies / email_upload_complete are set. */
  uploadComplete(transfer: Transfer, files: FileRecord[], recipients: Recipient[]): void;
  transferReminder(transfer: Transfer, files: FileRecord[], recipients: Recipient[]): void;
  fileRemoved(transfer: Transfer, file: FileRecord, recipients: Recipient[]): void;
  recipientRemoved(transfer: Transfer, recipient: Recipient): void;
  /** To the owner, when email_report_on_closing is set (closed by owner, expiry, last file/recipient). */
  transferClosed(transfer: Transfer, files: FileRecord[], recipients: Recipient[]): void;
  /** To the owner, when email_me_on_expire is set. */
  transferExpired(transfer: Transfer, files: FileRecord[], recipients: Recipient[]): void;
  /** To the owner (email_download_complete) and to the recipient (enable_recipient_email_download_complete). */
  downloadComplete(transfer: Transfer, recipient: Recipient, files: FileRecord[]): void;
  auditLog(transfer: Transfer, entries: AuditEntry[], to: string, lang: string | null): void;
  guestCreated(guest: Guest): void;
  /** Receipt to the creator when email_guest_created_receipt is set. */
  guestCreatedReceipt(guest: Guest): void;
  guestReminder(guest: Guest): void;
  guestDeleted(guest: Guest): void;
  guestExpired(guest: Guest): void;
  /** To the creator when email_upload_started is set. */
  guestUploadStarted(guest: Guest, transfer: Transfer): void;
  /** To the creator when email_upload_page_access is set. */
  guestUploadPageAccess(guest: Guest): void;
}

/** Records what would be sent; used until the mail module is wired, and handy in unit tests. */
export class RecordingNotifier implements Notifier {
  readonly sent: { kind: keyof Notifier; args: unknown[] }[] = [];
  private rec = (kind: keyof Notifier) => (...args: unknown[]) => {
    this.sent.push({ kind, args });
  };
  transferAvailable = this.rec('transferAvailable');
  uploadComplete = this.rec('uploadComplete');
  transferReminder = this.rec('transferReminder');
  fileRemoved = this.rec('fileRemoved');
  recipientRemoved = this.rec('recipientRemoved');
  transferClosed = this.rec('transferClosed');
  transferExpired = this.rec('transferExpired');
  downloadComplete = this.rec('downloadComplete');
  auditLog = this.rec('auditLog');
  guestCreated = this.rec('guestCreated');
  guestCreatedReceipt = this.rec('guestCreatedReceipt');
  guestReminder = this.rec('guestReminder');
  guestDeleted = this.rec('guestDeleted');
  guestExpired = this.rec('guestExpired');
  guestUploadStarted = this.rec('guestUploadStarted');
  guestUploadPageAccess = this.rec('guestUploadPageAccess');
}
