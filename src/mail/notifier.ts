import type { AuditEntry, FileRecord, Guest, Recipient, Transfer } from '../domain/model';
import type { Clock, Notifier, TrackingTarget, Tx } from '../domain/ports';
import type { Settings } from '../config/settings';
import { normaliseLang } from '../i18n';
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
  virusFoundMail,
} from './templates/transfer';
import { guestCreatorMail, guestMail } from './templates/guest';

/**
 * Turns domain events into queued e-mails: picks the language (recipient's, else the Transfer's or guest's,
 * else the configured default), renders the template and queues it through the unit of work of the change
 * (`tx`), so the mail commits with it; the worker is woken once it has. Never throws for delivery.
 */
export class MailNotifier implements Notifier {
  constructor(
    private readonly settings: Settings,
    /** Wakes the delivery worker (MailQueue.kick). */
    private readonly wake: () => void,
    private readonly clock: Clock,
  ) {}

  async transferAvailable(tx: Tx, t: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void> {
    for (const r of recipients) await this.toRecipient(tx, t, r, (c) => transferAvailableMail(c, t, files, r, false));
  }

  async transferReminder(tx: Tx, t: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void> {
    for (const r of recipients) await this.toRecipient(tx, t, r, (c) => transferAvailableMail(c, t, files, r, true));
  }

  async resendUndelivered(tx: Tx, r: Recipient): Promise<boolean> {
    const again = await tx.mailQueue.requeueUndelivered('Recipient', r.id, this.clock());
    if (again) tx.afterCommit(this.wake);
    return again;
  }

  uploadComplete(tx: Tx, t: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void> {
    return this.toOwner(tx, t, (c) => uploadCompleteMail(c, t, files, recipients));
  }

  async fileRemoved(tx: Tx, t: Transfer, file: FileRecord, recipients: Recipient[]): Promise<void> {
    for (const r of recipients) await this.toRecipient(tx, t, r, (c) => fileRemovedMail(c, t, file, r));
  }

  recipientRemoved(tx: Tx, t: Transfer, r: Recipient): Promise<void> {
    return this.toRecipient(tx, t, r, (c) => recipientRemovedMail(c, t));
  }

  transferClosed(tx: Tx, t: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void> {
    return this.toOwner(tx, t, (c) => transferEndedMail(c, t, files, recipients, false));
  }

  transferExpired(tx: Tx, t: Transfer, files: FileRecord[], recipients: Recipient[]): Promise<void> {
    return this.toOwner(tx, t, (c) => transferEndedMail(c, t, files, recipients, true));
  }

  async downloadComplete(tx: Tx, t: Transfer, r: Recipient, files: FileRecord[]): Promise<void> {
    if (t.options.includes('email_download_complete'))
      await this.toOwner(tx, t, (c) => downloadCompleteOwnerMail(c, t, r, files));
    if (t.options.includes('enable_recipient_email_download_complete')) {
      await this.toRecipient(tx, t, r, (c) => downloadCompleteRecipientMail(c, t, files));
    }
  }

  async auditLog(tx: Tx, t: Transfer, entries: AuditEntry[], to: string, lang: string | null): Promise<void> {
    await this.send(
      tx,
      to,
      this.context(lang, await userLang(tx, t.userId), t.lang),
      (c) => auditLogMail(c, t, entries),
      null,
    );
  }

  async virusFound(
    tx: Tx,
    t: Transfer,
    findings: { file: FileRecord; signature: string }[],
    blocked: boolean,
    admins: string[],
  ): Promise<void> {
    await this.toOwner(tx, t, (c) => virusFoundMail(c, t, findings, blocked));
    const owner = t.guestId !== null ? ((await tx.users.emails(t.userId))[0] ?? null) : t.userEmail;
    for (const to of admins) {
      if (to.toLowerCase() === owner?.toLowerCase()) continue; // an admin who owns it gets one mail
      await this.send(tx, to, this.context(), (c) => virusFoundMail(c, t, findings, blocked), null);
    }
  }

  guestCreated(tx: Tx, g: Guest): Promise<void> {
    return this.toGuest(tx, g, 'created');
  }

  guestReminder(tx: Tx, g: Guest): Promise<void> {
    return this.toGuest(tx, g, 'reminder');
  }

  guestDeleted(tx: Tx, g: Guest): Promise<void> {
    return this.toGuest(tx, g, 'deleted');
  }

  guestExpired(tx: Tx, g: Guest): Promise<void> {
    return this.toGuest(tx, g, 'expired');
  }

  guestCreatedReceipt(tx: Tx, g: Guest): Promise<void> {
    return this.toGuestCreator(tx, g, (c) => guestCreatorMail(c, g, 'receipt'));
  }

  guestUploadStarted(tx: Tx, g: Guest, t: Transfer): Promise<void> {
    return this.toGuestCreator(tx, g, (c) => guestCreatorMail(c, g, 'upload_started', t));
  }

  guestUploadPageAccess(tx: Tx, g: Guest): Promise<void> {
    return this.toGuestCreator(tx, g, (c) => guestCreatorMail(c, g, 'page_access'));
  }

  private async toRecipient(tx: Tx, t: Transfer, r: Recipient, build: (c: MailContext) => MailParts): Promise<void> {
    if (!r.email) return; // the link recipient of a get_a_link Transfer has no address
    // The recipient's language, else the guest's (for a guest's Transfer), else the Transfer's, else the default.
    const guestLang = t.guestId !== null ? ((await tx.guests.find(t.guestId))?.lang ?? null) : null;
    await this.send(
      tx,
      r.email,
      this.context(r.lang, guestLang, t.lang),
      build,
      { type: 'Recipient', id: r.id },
      t.userEmail,
    );
  }

  private async toOwner(tx: Tx, t: Transfer, build: (c: MailContext) => MailParts): Promise<void> {
    // A guest's Transfer belongs to the guest's creator: owner mail goes to the creator, not the guest.
    const to = t.guestId !== null ? ((await tx.users.emails(t.userId))[0] ?? null) : t.userEmail;
    if (!to) return;
    await this.send(tx, to, this.context(await userLang(tx, t.userId), t.lang), build, null);
  }

  private toGuest(tx: Tx, g: Guest, kind: Parameters<typeof guestMail>[2]): Promise<void> {
    return this.send(
      tx,
      g.email,
      this.context(g.lang),
      (c) => guestMail(c, g, kind),
      { type: 'Guest', id: g.id },
      g.userEmail,
    );
  }

  private async toGuestCreator(tx: Tx, g: Guest, build: (c: MailContext) => MailParts): Promise<void> {
    await this.send(tx, g.userEmail, this.context(await userLang(tx, g.userId)), build, null);
  }

  private context(...langs: (string | null | undefined)[]): MailContext {
    const cfg = this.settings.get();
    const defaultLang = normaliseLang(cfg.default_lang) ?? 'en';
    const lang = langs.map((l) => normaliseLang(l)).find((l): l is string => l !== null) ?? defaultLang;
    return { lang, defaultLang, baseUrl: cfg.base_url };
  }

  private async send(
    tx: Tx,
    to: string,
    c: MailContext,
    build: (c: MailContext) => MailParts,
    target: { type: TrackingTarget; id: number } | null,
    replyTo?: string,
  ): Promise<void> {
    const rendered = renderMail(build(c));
    const msg = { from: this.settings.get().mail.from, to, replyTo, lang: c.lang, ...rendered };
    await tx.mailQueue.enqueue(msg, this.clock(), target);
    tx.afterCommit(this.wake);
  }
}

async function userLang(tx: Tx, userId: string): Promise<string | null> {
  return (await tx.users.record(userId))?.lang ?? null;
}
