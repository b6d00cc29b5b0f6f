import { Errors, isOutOfSpace, ServiceError } from './errors';
import { ReminderLimit, reminderLimitReached } from './reminder-limits';
import type { Actor, AuditEntry, FileRecord, Recipient, Transfer } from './model';
import type { Clock, FileStore, IdGenerator, Notifier, Repositories, TransferOwner, Tx, UnitOfWork } from './ports';
import { hasMultipartUploads } from './ports';
import type { TransferDraft, TransferLimits } from './transfer-input';
import { newSalt } from './encryption-input';
import type { GuestsService } from './guests';
import { auditAuthor, fileTarget, recipientTarget, transferTarget } from './audit-events';
import { senderTerms } from './transfer-policy';
import type { UsageService } from './usage';
import type { Page } from './paging';
import { dropFileData, dropTransferData } from './stored-data';
import { CHUNK_OVERHEAD, encryptedSize } from '../shared-crypto/format';

export { senderFieldsIgnored } from './transfer-policy';

/** How many addresses GET /user/.../frequent_recipients returns at most. */
export const FREQUENT_RECIPIENTS_LIMIT = 50;

export interface TransferView {
  transfer: Transfer;
  files: FileRecord[];
  recipients: Recipient[];
  /** Only in the create response: the client's cid for each created File id. */
  cids?: Map<number, string>;
}

export interface TransferDeps {
  repos: Repositories;
  uow: UnitOfWork;
  files: FileStore;
  notifier: Notifier;
  guests: GuestsService;
  clock: Clock;
  ids: IdGenerator;
  limits: () => TransferLimits & { extensions: number[] };
  /** Quotas: a new transfer that would pass its owner's or the instance's is refused. */
  usage: UsageService;
  /** The chunk size clients are told to use (upload_chunk_size). */
  chunkSize: () => number;
  /** Called when a completion waits for files assembled in the background (src/domain/assembly.ts). */
  assembleLater?: () => void;
  /** Virus scanning (./virus-scans.ts): whether a completed transfer waits for a scan; absent: never. */
  scanning?: () => { wanted(t: Transfer): boolean; kick(): void } | null;
}

/**
 * Transfers: creation under the spec's rules, the status machine of docs/architecture.md (created → started
 * → uploading → available → closed), and the owner's actions. Mail goes through the Notifier in the unit of
 * work of the change; file data through the FileStore, after the records; every state change is audited.
 */
export class TransfersService {
  constructor(private readonly d: TransferDeps) {}

  /** The draft comes checked from the edge (parseTransferInput); the sender's kind is applied here. */
  create(actor: Actor, draft: TransferDraft, lang: string | null): Promise<TransferView> {
    const now = this.d.clock();
    return this.d.uow.run(async (tx) => {
      const terms = await senderTerms(tx, actor, draft, this.d.guests);
      const getALink = terms.options.includes('get_a_link');
      if (terms.recipients.length === 0 && !getALink) throw Errors.transferNoRecipients('recipients');
      if (terms.recipients.length > this.d.limits().maxRecipients) throw Errors.transferTooManyRecipients('recipients');
      // A guest's transfer counts against the user who invited the guest (its owner).
      this.checkStoredSizes(draft);
      await this.d.usage.checkNewTransfer(
        tx,
        terms.ownerId,
        draft.files.reduce((n, f) => n + f.size, 0),
      );
      const recipientRows = terms.recipients.map((email) => ({ email, token: this.d.ids.token(), lang: null }));
      if (getALink) recipientRows.push({ email: '', token: this.d.ids.token(), lang: null });
      const id = await tx.transfers.create(
        {
          userId: terms.ownerId,
          userEmail: terms.from,
          guestId: terms.guestId,
          subject: draft.subject,
          message: draft.message,
          options: terms.options,
          lang,
          created: now,
          expires: draft.expires,
          roundtripToken: this.d.ids.token(),
          encryption: draft.encryption ? { ...draft.encryption.transfer, salt: newSalt() } : null,
        },
        draft.files.map((f, i) => ({
          ...f,
          uid: this.d.ids.token(),
          ...(draft.encryption ? draft.encryption.files[i] : {}),
        })),
        recipientRows,
      );
      await tx.transfers.setStatus(id, 'started', now);
      if (draft.sharing && (draft.sharing.downloadLimit !== null || draft.sharing.passwordHash !== null))
        await tx.sharing.setControls(id, draft.sharing);
      if (terms.remember) await tx.frequentRecipients.remember(terms.ownerId, terms.recipients, now);
      const view = await this.view((await tx.transfers.find(id))!, tx);
      view.cids = new Map(view.files.filter((f) => f.cid !== null).map((f) => [f.id, f.cid!]));
      await tx.audit.record({
        transferId: id,
        date: now,
        event: 'transfer_started',
        author: auditAuthor(actor),
        target: transferTarget(view.transfer),
      });
      return view;
    });
  }

  /**
   * Every file must fit the store: on S3, 10,000 segments of 10,000 parts of the chunk size (far beyond
   * max_transfer_size; less when storage.max_parts is lowered). Refused here, before any byte is sent, with the
   * file's size named in `details` (the transfer as a whole may be within max_transfer_size).
   */
  private checkStoredSizes(draft: TransferDraft): void {
    const store = this.d.files;
    if (!hasMultipartUploads(store)) return;
    const chunk = draft.encryption ? draft.encryption.transfer.chunkSize : this.d.chunkSize();
    const max = store.maxFileSize(draft.encryption ? chunk + CHUNK_OVERHEAD : chunk);
    draft.files.forEach((f, i) => {
      const stored = draft.encryption ? encryptedSize(f.size, chunk) : f.size;
      if (stored > max) throw Errors.transferMaximumSizeExceeded(`files[${i}].size`);
    });
  }

  async get(id: number): Promise<Transfer> {
    const t = await this.d.repos.transfers.find(id);
    if (!t) throw Errors.transferNotFound();
    return t;
  }

  async view(t: Transfer, repos: Repositories = this.d.repos): Promise<TransferView> {
    // Side by side: on PostgreSQL two round trips overlap (on SQLite both are answered at once anyway).
    const [files, recipients] = await Promise.all([repos.transfers.files(t.id), repos.transfers.recipients(t.id)]);
    return { transfer: t, files, recipients };
  }

  /** One page of the actor's Transfers (a guest's: those sent under their token), newest first; null: all. */
  pageFor(actor: Actor, page: Page | null): Promise<Transfer[]> {
    return this.d.repos.transfers.listPage(ownerOf(actor), page);
  }

  /** One page of every Transfer (the admin's list), newest first; null: all. */
  pageAll(page: Page | null): Promise<Transfer[]> {
    return this.d.repos.transfers.listPage('all', page);
  }

  listFor(actor: Actor): Promise<Transfer[]> {
    return actor.type === 'guest' && actor.guestId !== null
      ? this.d.repos.transfers.listOfGuest(actor.guestId)
      : this.d.repos.transfers.listOfUser(actor.id);
  }

  listAll(): Promise<Transfer[]> {
    return this.d.repos.transfers.listAll();
  }

  /** The Transfer as it is now, its row held until the unit of work ends: status changes start here. */
  private async current(tx: Tx, t: Transfer): Promise<Transfer> {
    const now = await tx.transfers.lock(t.id);
    if (!now) throw Errors.transferNotFound();
    return now;
  }

  /** PUT /transfer {complete}: every file complete → available, recipients notified. */
  async complete(actor: Actor, t: Transfer): Promise<Transfer> {
    if (t.status === 'available') return t; // a retried completion changes nothing and mails nobody twice
    this.assertOpen(t);
    const now = this.d.clock();
    // One unit of work: a crash part-way (rendering forty mails takes a while) must not leave the Transfer
    // available with only some recipients' mail queued, since a retried completion mails nobody.
    return this.d.uow.run(async (tx) => {
      const cur = await this.current(tx, t);
      if (cur.status === 'available') return cur;
      this.assertOpen(cur);
      if (cur.guestId !== null) await this.d.guests.assertStillInvited(cur.guestId, tx);
      const files = await tx.transfers.files(t.id);
      const incomplete = files.filter((f) => !f.complete);
      if (incomplete.length && incomplete.every((f) => f.assembling)) {
        // Files still being assembled in the background: the Transfer becomes available when the last one is
        // (src/domain/assembly.ts). The caller is answered now, the Transfer still uploading.
        await tx.transfers.requestCompletion(t.id, JSON.stringify(actor));
        // The last file may have been assembled while this unit of work ran: look again once it commits.
        tx.afterCommit(() => this.d.assembleLater?.());
        return { ...cur, completing: true };
      }
      if (incomplete.length) throw Errors.transferFilesIncomplete(...incomplete.map((f) => `files[${f.id}]`));
      const author = auditAuthor(actor);
      // With virus scanning on, the transfer stays "being checked" (uploading, with a scan waiting) and the
      // scan's job makes it available (releaseIn) once every file is clean: docs/sharing.md, Virus scanning.
      const scans = this.d.scanning?.() ?? null;
      if (scans?.wanted(cur)) {
        if (await tx.virusScans.find(t.id)) return cur; // a retried completion: its scan is under way already
        await tx.virusScans.begin(t.id, now);
        await tx.audit.record({
          transferId: t.id,
          date: now,
          event: 'upload_ended',
          author,
          target: transferTarget(cur),
        });
        tx.afterCommit(() => scans.kick());
        return cur;
      }
      await tx.audit.record({
        transferId: t.id,
        date: now,
        event: 'upload_ended',
        author,
        target: transferTarget(cur),
      });
      return this.releaseIn(tx, cur, author, now, files);
    });
  }

  /**
   * The end of a completion: available, recipients mailed (unless get_a_link), the sender's copy, the guest's
   * count. In the caller's unit of work, the transfer's row held (completion, or a virus scan found it clean).
   */
  async releaseIn(
    tx: Tx,
    cur: Transfer,
    author: AuditEntry['author'],
    now: number,
    given?: FileRecord[],
  ): Promise<Transfer> {
    const t = cur;
    const files = given ?? (await tx.transfers.files(t.id));
    await tx.transfers.setStatus(t.id, 'available', now);
    const after = (await tx.transfers.find(t.id))!;
    const recipients = await tx.transfers.recipients(t.id);
    await tx.audit.record({
      transferId: t.id,
      date: now,
      event: 'transfer_available',
      author,
      target: transferTarget(after),
    });
    if (!after.options.includes('get_a_link')) {
      await this.d.notifier.transferAvailable(tx, after, files, recipients);
      if (recipients.some((r) => r.email))
        await tx.audit.record({
          transferId: t.id,
          date: now,
          event: 'transfer_sent',
          author,
          target: transferTarget(after),
        });
    }
    if (after.options.includes('email_upload_complete') || after.options.includes('email_me_copies')) {
      await this.d.notifier.uploadComplete(tx, after, files, recipients);
    }
    if (after.guestId !== null) await this.d.guests.transferMadeAvailable(tx, after.guestId);
    return after;
  }

  /**
   * A completion asked for while files were being assembled, run again once they may be: false while some are
   * still incomplete (or its virus scan runs).
   */
  async completeWhenAssembled(actor: Actor, transferId: number): Promise<boolean> {
    const t = await this.d.repos.transfers.find(transferId);
    if (!t || t.status === 'closed') return false;
    try {
      return (await this.complete(actor, t)).status === 'available';
    } catch (e) {
      // Expired meanwhile (purge closes it), or a file deleted: nothing to make available.
      if (e instanceof ServiceError) return false;
      throw e;
    }
  }

  /** Closes the Transfer: its files' data is deleted now, its records stay for the owner until purge. */
  async close(actor: Actor, t: Transfer, reason: string): Promise<Transfer> {
    if (t.status === 'closed') return t;
    const closeRecords = () =>
      this.d.uow.run(async (tx) => {
        const cur = await this.current(tx, t);
        return cur.status === 'closed' ? cur : this.closeRecords(tx, actor, cur, reason);
      });
    let after: Transfer;
    try {
      after = await closeRecords();
    } catch (e) {
      // A full disk: deleting is how space comes back, so the owner's deletion frees the Transfer's stored
      // bytes first and records it then (docs/hardening.md, "A full disk"). A crash in between leaves a
      // Transfer whose data is gone, which its owner was deleting anyway.
      if (!isOutOfSpace(e) || reason !== 'deleted') throw e;
      await this.d.files.deleteTransfer(t.id);
      after = await closeRecords();
    }
    await dropTransferData(this.d.repos, this.d.files, t.id);
    return after;
  }

  /**
   * Status, log entry and the owner's report, run inside the caller's unit of work and before the data goes:
   * a crash after it leaves only data, which purge's orphan scan removes, never a report that is lost.
   */
  private async closeRecords(tx: Tx, actor: Actor, t: Transfer, reason: string): Promise<Transfer> {
    const now = this.d.clock();
    const files = await tx.transfers.files(t.id);
    const recipients = await tx.transfers.recipients(t.id);
    await tx.transfers.setStatus(t.id, 'closed', now, reason);
    const after = (await tx.transfers.find(t.id))!;
    // DELETE /transfer is logged as a deletion; every other way to close (owner, last file/recipient) as a closing.
    const event = reason === 'deleted' ? 'transfer_deleted' : 'transfer_closed';
    await tx.audit.record({
      transferId: t.id,
      date: now,
      event,
      author: auditAuthor(actor),
      target: transferTarget(after),
    });
    if (after.options.includes('email_report_on_closing'))
      await this.d.notifier.transferClosed(tx, after, files, recipients);
    return after;
  }

  async extend(actor: Actor, t: Transfer): Promise<Transfer> {
    this.assertOpen(t);
    return this.d.uow.run(async (tx) => {
      const cur = await this.current(tx, t);
      this.assertOpen(cur);
      const steps = this.d.limits().extensions;
      if (cur.expiryExtensionsUsed >= steps.length)
        throw Errors.transferExpiryExtensionCountExceeded('extend_expiry_date');
      const now = this.d.clock();
      await tx.transfers.extendExpiry(t.id, Math.max(cur.expires, now) + steps[cur.expiryExtensionsUsed] * 86400);
      const after = (await tx.transfers.find(t.id))!;
      await tx.audit.record({
        transferId: t.id,
        date: now,
        event: 'transfer_expiry_extended',
        author: auditAuthor(actor),
        target: transferTarget(after),
      });
      return after;
    });
  }

  /** Remaining extensions: the spec's expiry_date_extension. */
  extensionsLeft(t: Transfer): number {
    return Math.max(0, this.d.limits().extensions.length - t.expiryExtensionsUsed);
  }

  /**
   * A reminder to every recipient (or `only` one). Each recipient gets at most REMINDER_LIMIT of them a day: one
   * past it is refused (429); a reminder to all leaves out those past it, and is refused when that is everyone.
   */
  async remind(actor: Actor, t: Transfer, only?: Recipient): Promise<void> {
    if (t.status !== 'available') throw Errors.transferNotAvailable('remind');
    // A link has no address to remind: refused rather than recorded as a reminder nobody gets.
    if (only && !only.email) throw Errors.transferLinkOnly('remind');
    await this.d.uow.run(async (tx) => {
      await tx.transfers.lock(t.id); // reminders of one Transfer asked at once are counted one after the other
      const now = this.d.clock();
      const limit = new ReminderLimit(tx);
      const recipients = only ? [only] : (await tx.transfers.recipients(t.id)).filter((r) => r.email);
      if (recipients.length === 0) throw Errors.transferLinkOnly('remind');
      // A recipient whose mail was deferred or bounced gets that mail again now, not a second one beside it.
      const remind: Recipient[] = [];
      let wait = Number.POSITIVE_INFINITY;
      for (const r of recipients) {
        if (await this.d.notifier.resendUndelivered(tx, r)) {
          wait = 0;
          continue;
        }
        if (!r.email) continue; // the link of a get_a_link Transfer: no address, no mail
        const w = await limit.wait({ type: 'recipient', id: r.id }, now);
        wait = Math.min(wait, w);
        if (w === 0) remind.push(r);
      }
      if (wait > 0 && Number.isFinite(wait)) throw reminderLimitReached(wait);
      for (const r of remind) await limit.sent({ type: 'recipient', id: r.id }, now);
      if (remind.length) await this.d.notifier.transferReminder(tx, t, await tx.transfers.files(t.id), remind);
      const target = only ? recipientTarget(only) : transferTarget(t);
      await tx.audit.record({
        transferId: t.id,
        date: this.d.clock(),
        event: 'transfer_reminded',
        author: auditAuthor(actor),
        target,
      });
    });
  }

  /** DELETE /file: the last file closes the Transfer; otherwise recipients of an available Transfer are told. */
  async deleteFile(actor: Actor, f: FileRecord): Promise<void> {
    const t = await this.get(f.transferId);
    if (t.status === 'closed') throw Errors.cannotAlterClosedTransfer();
    const now = this.d.clock();
    // The records and mail first, in one unit of work; the data after (see closeRecords).
    const last = await this.d.uow.run(async (tx) => {
      const cur = await this.current(tx, t);
      if (cur.status === 'closed') throw Errors.cannotAlterClosedTransfer();
      await tx.transfers.deleteFile(f.id, now);
      await tx.audit.record({
        transferId: t.id,
        date: now,
        event: 'file_deleted',
        author: auditAuthor(actor),
        target: fileTarget(f),
      });
      if ((await tx.transfers.files(t.id)).length === 0) {
        await this.closeRecords(tx, actor, cur, 'last_file');
        return true;
      }
      if (cur.status === 'available')
        await this.d.notifier.fileRemoved(tx, cur, f, await tx.transfers.recipients(t.id));
      return false;
    });
    if (last) await dropTransferData(this.d.repos, this.d.files, t.id);
    else await dropFileData(this.d.repos, this.d.files, t.id, f.id, f.uid);
  }

  /** The user's frequent recipients, most recent first. */
  frequentRecipients(userId: string, contains: string | null): Promise<string[]> {
    return this.d.repos.frequentRecipients.list(userId, contains, FREQUENT_RECIPIENTS_LIMIT);
  }

  auditLog(t: Transfer): Promise<AuditEntry[]> {
    return this.d.repos.audit.forTransfer(t.id);
  }

  async mailAuditLog(actor: Actor, t: Transfer, lang: string | null): Promise<void> {
    const to = actor.emails[0];
    if (!to) throw Errors.badEmail('user');
    await this.d.uow.run(async (tx) => this.d.notifier.auditLog(tx, t, await tx.audit.forTransfer(t.id), to, lang));
  }

  /** Closes a Transfer from inside another unit of work (the last recipient removed). */
  closeIn(tx: Tx, actor: Actor, t: Transfer, reason: string): Promise<Transfer> {
    return this.closeRecords(tx, actor, t, reason);
  }

  assertOpen(t: Transfer): void {
    if (t.status === 'closed') throw Errors.cannotAlterClosedTransfer();
    if (t.expires <= this.d.clock()) throw Errors.transferExpired();
  }
}

/** Each Transfer of `list` with its own of `files` and `recipients` (read for the whole list at once), in order. */
export function viewsOf(list: Transfer[], files: FileRecord[], recipients: Recipient[]): TransferView[] {
  const byTransfer = new Map<number, TransferView>(list.map((t) => [t.id, { transfer: t, files: [], recipients: [] }]));
  for (const f of files) byTransfer.get(f.transferId)?.files.push(f);
  for (const r of recipients) byTransfer.get(r.transferId)?.recipients.push(r);
  return list.map((t) => byTransfer.get(t.id) as TransferView);
}

/** Whose Transfers an actor's list is: a guest's own (those sent under their token), else the user's. */
export function ownerOf(actor: Actor): TransferOwner {
  return actor.type === 'guest' && actor.guestId !== null ? { guestId: actor.guestId } : { userId: actor.id };
}
