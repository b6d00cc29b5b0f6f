import { Errors } from './errors';
import type { Recipient, Transfer } from './model';
import type { Notifier } from './notifications';
import type { Clock } from './services';
import type { Actor, AuditLog, TransferStore } from './transfer-store';
import { isEmail } from './transfer-input';
import { auditAuthor, recipientTarget } from './audit-events';
import { newToken, TransfersService } from './transfers';
import { assertMayAddRecipient } from './transfer-policy';
import type { GuestsService } from './guests';
import type { FrequentRecipientStore } from './frequent-recipients';

/** Adding and removing the recipients of a Transfer (spec: Recipient endpoints, rule 4 of States). */
export class RecipientsService {
  constructor(
    private readonly store: TransferStore,
    private readonly transfers: TransfersService,
    private readonly audit: AuditLog,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    private readonly maxRecipients: () => number,
    private readonly guests: GuestsService,
    private readonly frequent: FrequentRecipientStore,
  ) {}

  get(id: number): Recipient {
    const r = this.store.findRecipient(id);
    if (!r) throw Errors.recipientNotFound();
    return r;
  }

  /** POST /transfer/{id}/recipient: a recipient added to an available Transfer is mailed its link at once. */
  add(actor: Actor, t: Transfer, body: unknown): Recipient {
    this.transfers.assertOpen(t);
    assertMayAddRecipient(actor, this.guests);
    const email = (body as { recipient?: unknown } | null)?.recipient;
    if (email === undefined) throw Errors.restMissingParameter('recipient');
    if (!isEmail(email)) throw Errors.badEmail('recipient');
    const current = this.store.recipients(t.id);
    const existing = current.find((r) => r.email.toLowerCase() === email.toLowerCase());
    if (existing) return existing;
    if (current.filter((r) => r.email).length >= this.maxRecipients()) throw Errors.transferTooManyRecipients('recipient');
    const now = this.clock();
    // With its mail in one transaction: a crash must not leave a recipient added who is never told.
    return this.store.transaction(() => {
      const id = this.store.addRecipient(t.id, { email, token: newToken(), lang: null }, now);
      if (actor.type !== 'guest') this.frequent.remember(t.userId, [email], now); // the owner's own choices only
      const r = this.get(id);
      this.audit.record({ transferId: t.id, date: now, event: 'recipient_added', author: auditAuthor(actor), target: recipientTarget(r) });
      if (t.status === 'available') this.notifier.transferAvailable(t, this.store.files(t.id), [r]);
      return r;
    });
  }

  /** DELETE /recipient: the last one closes the Transfer; otherwise the removed recipient is told. */
  async remove(actor: Actor, r: Recipient): Promise<void> {
    const t = this.transfers.get(r.transferId);
    if (t.status === 'closed') throw Errors.cannotAlterClosedTransfer();
    const now = this.clock();
    const last = this.store.transaction(() => {
      this.store.deleteRecipient(r.id, now);
      this.audit.record({ transferId: t.id, date: now, event: 'recipient_removed', author: auditAuthor(actor), target: recipientTarget(r) });
      if (this.store.recipients(t.id).length === 0) return true;
      if (t.status === 'available') this.notifier.recipientRemoved(t, r);
      return false;
    });
    if (last) await this.transfers.close(actor, t, 'last_recipient');
  }
}
