import type { AuditEntry, FileRecord, Guest, Recipient, Transfer } from '../model';
import type { Tx } from './unit-of-work';

/**
 * Every e-mail ferry sends, as domain events: the mailer port. The domain decides *when* (spec: Events;
 * options of docs/architecture.md); the mail adapter decides *how* (templates, language, queue, retries).
 * Each call queues its mail through `tx`, so it commits with the change it reports and is delivered after.
 * Implementations never throw for a delivery problem: mail is retried, and a refused address becomes a
 * Tracking error.
 */
export interface Notifier {
  /** Transfer made available (or a recipient added to an available Transfer): one mail per recipient. */
  transferAvailable(tx: Tx, transfer: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void>;
  /** Copy to the sender when email_me_copies / email_upload_complete are set. */
  uploadComplete(tx: Tx, transfer: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void>;
  transferReminder(tx: Tx, transfer: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void>;
  /**
   * Sends the recipient's latest mail again, now, when it was deferred or bounced (the owner's "Send again"),
   * so it is not doubled by a reminder; false when there was no such mail.
   */
  resendUndelivered(tx: Tx, recipient: Recipient): Promise<boolean>;
  fileRemoved(tx: Tx, transfer: Transfer, file: FileRecord, recipients: Recipient[]): Promise<void>;
  recipientRemoved(tx: Tx, transfer: Transfer, recipient: Recipient): Promise<void>;
  /** To the owner, when email_report_on_closing is set (closed by owner, expiry, last file/recipient). */
  transferClosed(tx: Tx, transfer: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void>;
  /** To the owner, when email_me_on_expire is set. */
  transferExpired(tx: Tx, transfer: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void>;
  /** To the owner (email_download_complete) and to the recipient (enable_recipient_email_download_complete). */
  downloadComplete(tx: Tx, transfer: Transfer, recipient: Recipient, files: FileRecord[]): Promise<void>;
  auditLog(tx: Tx, transfer: Transfer, entries: AuditEntry[], to: string, lang: string | null): Promise<void>;
  /** A virus scan found infected files (docs/sharing.md, Virus scanning): to the owner and to each admin address. */
  virusFound(
    tx: Tx,
    transfer: Transfer,
    findings: { file: FileRecord; signature: string }[],
    blocked: boolean,
    admins: string[],
  ): Promise<void>;
  guestCreated(tx: Tx, guest: Guest): Promise<void>;
  /** Receipt to the creator when email_guest_created_receipt is set. */
  guestCreatedReceipt(tx: Tx, guest: Guest): Promise<void>;
  guestReminder(tx: Tx, guest: Guest): Promise<void>;
  guestDeleted(tx: Tx, guest: Guest): Promise<void>;
  guestExpired(tx: Tx, guest: Guest): Promise<void>;
  /** To the creator when email_upload_started is set. */
  guestUploadStarted(tx: Tx, guest: Guest, transfer: Transfer): Promise<void>;
  /** To the creator when email_upload_page_access is set. */
  guestUploadPageAccess(tx: Tx, guest: Guest): Promise<void>;
}

/** The outgoing mail worker, as the edge sees it: flush() delivers what is due now (tests, CLI commands). */
export interface MailOutbox {
  flush(): Promise<void>;
}
