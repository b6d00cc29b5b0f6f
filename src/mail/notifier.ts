import type { AuditEntry, FileRecord, Guest, Recipient, Transfer } from '../domain/model';
import type { Notifier } from '../domain/notifications';
import type { Settings } from '../config/settings';
import type { TrackingTarget } from '../db/tracking-errors-repo';
import { normaliseLang } from '../i18n';
import type { MailQueue } from './queue';
import { MailParts, renderMail } from './render';
import type { MailContext } from './templates/context';
import {
  auditLogMail,
  downloadCompleteOwnerMail,
  downloadCompleteRecipientMail,
  fileRemovedMail,
  recipientRemovedMail,
  transferAvailableMail,
  transferEndedMail,
  uploadCompleteMail,
} from './templates/transfer';
import { guestCreatorMail, guestMail } from './templates/guest';

/** Lookups the notifier needs: users' language and address (mail to a Transfer's owner), guests' language. */
export interface MailDirectory {
  userLang(userId: string): string | null;
  userEmail(userId: string): string | null;
  guestLang(guestId: number): string | null;
}

/**
 * Turns domain events into queued e-mails: picks the language (recipient's, else the Transfer's or guest's,
 * else the configured default), renders the template and hands it to the queue. Never throws for delivery.
 */
export class MailNotifier implements Notifier {
  constructor(
    private readonly queue: MailQueue,
    private readonly settings: Settings,
    private readonly directory: MailDirectory,
  ) {}

  transferAvailable(t: Transfer, files: FileRecord[], recipients: Recipient[]): void {
    for (const r of recipients) this.toRecipient(t, r, (c) => transferAvailableMail(c, t, files, r, false));
  }

  transferReminder(t: Transfer, files: FileRecord[], recipients: Recipient[]): void {
    for (const r of recipients) this.toRecipient(t, r, (c) => transferAvailableMail(c, t, files, r, true));
  }

  uploadComplete(t: Transfer, files: FileRecord[], recipients: Recipient[]): void {
    this.toOwner(t, (c) => uploadCompleteMail(c, t, files, recipients));
  }

  fileRemoved(t: Transfer, file: FileRecord, recipients: Recipient[]): void {
    for (const r of recipients) this.toRecipient(t, r, (c) => fileRemovedMail(c, t, file, r));
  }

  recipientRemoved(t: Transfer, r: Recipient): void {
    this.toRecipient(t, r, (c) => recipientRemovedMail(c, t));
  }

  transferClosed(t: Transfer, files: FileRecord[], recipients: Recipient[]): void {
    this.toOwner(t, (c) => transferEndedMail(c, t, files, recipients, false));
  }

  transferExpired(t: Transfer, files: FileRecord[], recipients: Recipient[]): void {
    this.toOwner(t, (c) => transferEndedMail(c, t, files, recipients, true));
  }

  downloadComplete(t: Transfer, r: Recipient, files: FileRecord[]): void {
    if (t.options.includes('email_download_complete')) this.toOwner(t, (c) => downloadCompleteOwnerMail(c, t, r, files));
    if (t.options.includes('enable_recipient_email_download_complete')) {
      this.toRecipient(t, r, (c) => downloadCompleteRecipientMail(c, t, files));
    }
  }

  auditLog(t: Transfer, entries: AuditEntry[], to: string, lang: string | null): void {
    this.send(to, this.context(lang, this.directory.userLang(t.userId), t.lang), (c) => auditLogMail(c, t, entries), null);
  }

  guestCreated(g: Guest): void {
    this.toGuest(g, 'created');
  }

  guestReminder(g: Guest): void {
    this.toGuest(g, 'reminder');
  }

  guestDeleted(g: Guest): void {
    this.toGuest(g, 'deleted');
  }

  guestExpired(g: Guest): void {
    this.toGuest(g, 'expired');
  }

  guestCreatedReceipt(g: Guest): void {
    this.toGuestCreator(g, (c) => guestCreatorMail(c, g, 'receipt'));
  }

  guestUploadStarted(g: Guest, t: Transfer): void {
    this.toGuestCreator(g, (c) => guestCreatorMail(c, g, 'upload_started', t));
  }

  guestUploadPageAccess(g: Guest): void {
    this.toGuestCreator(g, (c) => guestCreatorMail(c, g, 'page_access'));
  }

  private toRecipient(t: Transfer, r: Recipient, build: (c: MailContext) => MailParts): void {
    if (!r.email) return; // the link recipient of a get_a_link Transfer has no address
    // The recipient's language, else the guest's (for a guest's Transfer), else the Transfer's, else the default.
    const guestLang = t.guestId !== null ? this.directory.guestLang(t.guestId) : null;
    this.send(r.email, this.context(r.lang, guestLang, t.lang), build, { type: 'Recipient', id: r.id }, t.userEmail);
  }

  private toOwner(t: Transfer, build: (c: MailContext) => MailParts): void {
    // A guest's Transfer belongs to the guest's creator: owner mail goes to the creator, not the guest.
    const to = t.guestId !== null ? this.directory.userEmail(t.userId) : t.userEmail;
    if (!to) return;
    this.send(to, this.context(this.directory.userLang(t.userId), t.lang), build, null);
  }

  private toGuest(g: Guest, kind: Parameters<typeof guestMail>[2]): void {
    this.send(g.email, this.context(g.lang), (c) => guestMail(c, g, kind), { type: 'Guest', id: g.id }, g.userEmail);
  }

  private toGuestCreator(g: Guest, build: (c: MailContext) => MailParts): void {
    this.send(g.userEmail, this.context(this.directory.userLang(g.userId)), build, null);
  }

  private context(...langs: (string | null | undefined)[]): MailContext {
    const cfg = this.settings.get();
    const defaultLang = normaliseLang(cfg.default_lang) ?? 'en';
    const lang = langs.map((l) => normaliseLang(l)).find((l): l is string => l !== null) ?? defaultLang;
    return { lang, defaultLang, baseUrl: cfg.base_url };
  }

  private send(
    to: string,
    c: MailContext,
    build: (c: MailContext) => MailParts,
    target: { type: TrackingTarget; id: number } | null,
    replyTo?: string,
  ): void {
    const rendered = renderMail(build(c));
    this.queue.enqueue({ from: this.settings.get().mail.from, to, replyTo, lang: c.lang, ...rendered }, target);
  }
}
