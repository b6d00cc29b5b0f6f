import crypto from 'node:crypto';
import { Errors } from './errors';
import type { FileRecord, Recipient, Transfer } from './model';
import type { Notifier } from './notifications';
import type { Clock } from './services';
import type { FileStore } from '../storage/file-store';
import type { Actor, AuditLog, TransferStore } from './transfer-store';
import { parseTransferInput, TransferLimits } from './transfer-input';
import type { GuestsService } from './guests';
import { auditAuthor, fileTarget, recipientTarget, transferTarget } from './audit-events';
import { senderFieldsIgnored, senderTerms } from './transfer-policy';
import { FREQUENT_RECIPIENTS_LIMIT, type FrequentRecipientStore } from './frequent-recipients';

export interface TransferView {
  transfer: Transfer;
  files: FileRecord[];
  recipients: Recipient[];
  /** Only in the create response: the client's cid for each created File id. */
  cids?: Map<number, string>;
}

/** Download tokens and File uids: 128 random bits, hex. */
export function newToken(): string {
  return crypto.randomBytes(16).toString('hex');
}

export interface TransferDeps {
  store: TransferStore;
  files: FileStore;
  audit: AuditLog;
  frequent: FrequentRecipientStore;
  notifier: Notifier;
  guests: GuestsService;
  clock: Clock;
  limits: () => TransferLimits & { extensions: number[] };
}

/**
 * Transfers: creation under the spec's rules, the status machine of design.md §7 (created → started →
 * uploading → available → closed), and the owner's actions. Mail goes through the Notifier; file data through
 * the FileStore; every state change is written to the audit log.
 */
export class TransfersService {
  constructor(private readonly d: TransferDeps) {}

  create(actor: Actor, body: unknown, lang: string | null): TransferView {
    const now = this.d.clock();
    // Under a guest token `from` and `options` are ignored (spec), so they are not even checked.
    const given = senderFieldsIgnored(actor) && body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as object), from: undefined, options: undefined } : body;
    const draft = parseTransferInput(given, this.d.limits(), now);
    const terms = senderTerms(actor, draft, this.d.guests);
    const getALink = terms.options.includes('get_a_link');
    if (terms.recipients.length === 0 && !getALink) throw Errors.transferNoRecipients('recipients');
    if (terms.recipients.length > this.d.limits().maxRecipients) throw Errors.transferTooManyRecipients('recipients');
    const recipientRows = terms.recipients.map((email) => ({ email, token: newToken(), lang: null }));
    if (getALink) recipientRows.push({ email: '', token: newToken(), lang: null });
    const id = this.d.store.create(
      { userId: terms.ownerId, userEmail: terms.from, guestId: terms.guestId, subject: draft.subject, message: draft.message, options: terms.options, lang, created: now, expires: draft.expires },
      draft.files.map((f) => ({ ...f, uid: newToken() })),
      recipientRows,
    );
    this.d.store.setStatus(id, 'started', now);
    if (terms.remember) this.d.frequent.remember(terms.ownerId, terms.recipients, now);
    const view = this.view(this.get(id));
    view.cids = new Map(view.files.filter((f) => f.cid !== null).map((f) => [f.id, f.cid!]));
    this.d.audit.record({ transferId: id, date: now, event: 'transfer_started', author: auditAuthor(actor), target: transferTarget(view.transfer) });
    return view;
  }

  get(id: number): Transfer {
    const t = this.d.store.find(id);
    if (!t) throw Errors.transferNotFound();
    return t;
  }

  view(t: Transfer): TransferView {
    return { transfer: t, files: this.d.store.files(t.id), recipients: this.d.store.recipients(t.id) };
  }

  listFor(actor: Actor): Transfer[] {
    return actor.type === 'guest' && actor.guestId !== null ? this.d.store.listOfGuest(actor.guestId) : this.d.store.listOfUser(actor.id);
  }

  listAll(): Transfer[] {
    return this.d.store.listAll();
  }

  /** PUT /transfer {complete}: every file complete → available, recipients notified. */
  complete(actor: Actor, t: Transfer): Transfer {
    if (t.status === 'available') return t; // a retried completion changes nothing and mails nobody twice
    this.assertOpen(t);
    const files = this.d.store.files(t.id);
    const incomplete = files.filter((f) => !f.complete);
    if (incomplete.length) throw Errors.transferFilesIncomplete(...incomplete.map((f) => `files[${f.id}]`));
    const now = this.d.clock();
    // One transaction: a crash part-way (rendering forty mails takes a while) must not leave the Transfer
    // available with only some recipients' mail queued, since a retried completion mails nobody.
    return this.d.store.transaction(() => {
      this.d.store.setStatus(t.id, 'available', now);
      const after = this.get(t.id);
      const recipients = this.d.store.recipients(t.id);
      const author = auditAuthor(actor);
      this.d.audit.record({ transferId: t.id, date: now, event: 'upload_ended', author, target: transferTarget(after) });
      this.d.audit.record({ transferId: t.id, date: now, event: 'transfer_available', author, target: transferTarget(after) });
      if (!after.options.includes('get_a_link')) {
        this.d.notifier.transferAvailable(after, files, recipients);
        if (recipients.some((r) => r.email)) this.d.audit.record({ transferId: t.id, date: now, event: 'transfer_sent', author, target: transferTarget(after) });
      }
      if (after.options.includes('email_upload_complete') || after.options.includes('email_me_copies')) {
        this.d.notifier.uploadComplete(after, files, recipients);
      }
      if (after.guestId !== null) this.d.guests.transferMadeAvailable(after.guestId);
      return after;
    });
  }

  /** Closes the Transfer: its files' data is deleted now, its records stay for the owner until purge. */
  async close(actor: Actor, t: Transfer, reason: string): Promise<Transfer> {
    if (t.status === 'closed') return t;
    const after = this.d.store.transaction(() => this.closeRecords(actor, t, reason));
    await this.d.files.deleteTransfer(t.id);
    return after;
  }

  /**
   * Status, log entry and the owner's report, run inside the caller's transaction and before the data goes:
   * a crash after it leaves only data, which purge's orphan scan removes, never a report that is lost.
   */
  private closeRecords(actor: Actor, t: Transfer, reason: string): Transfer {
    const now = this.d.clock();
    const files = this.d.store.files(t.id);
    const recipients = this.d.store.recipients(t.id);
    this.d.store.setStatus(t.id, 'closed', now, reason);
    const after = this.get(t.id);
    // DELETE /transfer is logged as a deletion; every other way to close (owner, last file/recipient) as a closing.
    const event = reason === 'deleted' ? 'transfer_deleted' : 'transfer_closed';
    this.d.audit.record({ transferId: t.id, date: now, event, author: auditAuthor(actor), target: transferTarget(after) });
    if (after.options.includes('email_report_on_closing')) this.d.notifier.transferClosed(after, files, recipients);
    return after;
  }

  extend(actor: Actor, t: Transfer): Transfer {
    this.assertOpen(t);
    const steps = this.d.limits().extensions;
    if (t.expiryExtensionsUsed >= steps.length) throw Errors.transferExpiryExtensionCountExceeded('extend_expiry_date');
    const now = this.d.clock();
    this.d.store.extendExpiry(t.id, Math.max(t.expires, now) + steps[t.expiryExtensionsUsed] * 86400);
    const after = this.get(t.id);
    this.d.audit.record({ transferId: t.id, date: now, event: 'transfer_expiry_extended', author: auditAuthor(actor), target: transferTarget(after) });
    return after;
  }

  /** Remaining extensions: the spec's expiry_date_extension. */
  extensionsLeft(t: Transfer): number {
    return Math.max(0, this.d.limits().extensions.length - t.expiryExtensionsUsed);
  }

  remind(actor: Actor, t: Transfer, only?: Recipient): void {
    if (t.status !== 'available') throw Errors.transferNotAvailable('remind');
    const recipients = only ? [only] : this.d.store.recipients(t.id);
    this.d.notifier.transferReminder(t, this.d.store.files(t.id), recipients);
    const now = this.d.clock();
    const target = only ? recipientTarget(only) : transferTarget(t);
    this.d.audit.record({ transferId: t.id, date: now, event: 'transfer_reminded', author: auditAuthor(actor), target });
  }

  /** DELETE /file: the last file closes the Transfer; otherwise recipients of an available Transfer are told. */
  async deleteFile(actor: Actor, f: FileRecord): Promise<void> {
    const t = this.get(f.transferId);
    if (t.status === 'closed') throw Errors.cannotAlterClosedTransfer();
    const now = this.d.clock();
    // The records and mail first, in one transaction; the data after (see closeRecords).
    const last = this.d.store.transaction(() => {
      this.d.store.deleteFile(f.id, now);
      this.d.audit.record({ transferId: t.id, date: now, event: 'file_deleted', author: auditAuthor(actor), target: fileTarget(f) });
      if (this.d.store.files(t.id).length === 0) {
        this.closeRecords(actor, t, 'last_file');
        return true;
      }
      if (t.status === 'available') this.d.notifier.fileRemoved(t, f, this.d.store.recipients(t.id));
      return false;
    });
    if (last) await this.d.files.deleteTransfer(t.id);
    else await this.d.files.deleteFile(t.id, f.uid);
  }

  /** The user's frequent recipients, most recent first. */
  frequentRecipients(userId: string, contains: string | null): string[] {
    return this.d.frequent.list(userId, contains, FREQUENT_RECIPIENTS_LIMIT);
  }

  auditLog(t: Transfer) {
    return this.d.audit.forTransfer(t.id);
  }

  mailAuditLog(actor: Actor, t: Transfer, lang: string | null): void {
    const to = actor.emails[0];
    if (!to) throw Errors.badEmail('user');
    this.d.notifier.auditLog(t, this.d.audit.forTransfer(t.id), to, lang);
  }

  assertOpen(t: Transfer): void {
    if (t.status === 'closed') throw Errors.cannotAlterClosedTransfer();
    if (t.expires <= this.d.clock()) throw Errors.transferExpired();
  }
}
