import { Errors } from './errors';
import { dropTransferData } from './stored-data';
import type { Actor, MailDelivery, Recipient, TrackingError, Transfer } from './model';
import type { Clock, FileStore, IdGenerator, Notifier, Repositories, UnitOfWork } from './ports';
import { auditAuthor, recipientTarget } from './audit-events';
import type { TransfersService } from './transfers';
import { assertMayAddRecipient } from './transfer-policy';
import type { GuestsService } from './guests';

export interface RecipientDeps {
  repos: Repositories;
  uow: UnitOfWork;
  files: FileStore;
  transfers: TransfersService;
  notifier: Notifier;
  guests: GuestsService;
  clock: Clock;
  ids: IdGenerator;
  maxRecipients: () => number;
}

/** Adding and removing the recipients of a Transfer (spec: Recipient endpoints, rule 4 of States). */
export class RecipientsService {
  constructor(private readonly d: RecipientDeps) {}

  /**
   * The bounces recorded against recipients, and what became of the latest mail to each (queued, deferred,
   * bounced, sent), by recipient id: two reads whatever their number.
   */
  async deliveryStatus(
    ids: number[],
  ): Promise<{ errors: Map<number, TrackingError[]>; delivery: Map<number, MailDelivery> }> {
    const [errors, delivery] = await Promise.all([
      this.d.repos.trackingErrors.forTargets('Recipient', ids),
      this.d.repos.mailQueue.deliveryFor('Recipient', ids),
    ]);
    return { errors, delivery };
  }

  async get(id: number): Promise<Recipient> {
    const r = await this.d.repos.transfers.findRecipient(id);
    if (!r) throw Errors.recipientNotFound();
    return r;
  }

  /**
   * POST /transfer/{id}/recipient (the address checked at the edge): a recipient added to an available
   * Transfer is mailed its link at once, in the same unit of work, so a crash cannot leave one added who is
   * never told.
   */
  async add(actor: Actor, t: Transfer, email: string): Promise<Recipient> {
    this.d.transfers.assertOpen(t);
    // A transfer made to get a link mails nobody (transfers.ts, completion): an added address would never be told.
    if (t.options.includes('get_a_link')) throw Errors.transferLinkOnly('recipient');
    await assertMayAddRecipient(actor, this.d.guests);
    const now = this.d.clock();
    return this.d.uow.run(async (tx) => {
      const cur = await tx.transfers.lock(t.id);
      if (!cur) throw Errors.transferNotFound();
      this.d.transfers.assertOpen(cur);
      const current = await tx.transfers.recipients(t.id);
      const existing = current.find((r) => r.email.toLowerCase() === email.toLowerCase());
      if (existing) return existing;
      if (current.filter((r) => r.email).length >= this.d.maxRecipients())
        throw Errors.transferTooManyRecipients('recipient');
      const id = await tx.transfers.addRecipient(t.id, { email, token: this.d.ids.token(), lang: null }, now);
      if (actor.type !== 'guest') await tx.frequentRecipients.remember(t.userId, [email], now); // the owner's own choices only
      const r = (await tx.transfers.findRecipient(id))!;
      await tx.audit.record({
        transferId: t.id,
        date: now,
        event: 'recipient_added',
        author: auditAuthor(actor),
        target: recipientTarget(r),
      });
      if (cur.status === 'available')
        await this.d.notifier.transferAvailable(tx, cur, await tx.transfers.files(t.id), [r]);
      return r;
    });
  }

  /** DELETE /recipient: the last one closes the Transfer; otherwise the removed recipient is told. */
  async remove(actor: Actor, r: Recipient): Promise<void> {
    const t = await this.d.transfers.get(r.transferId);
    if (t.status === 'closed') throw Errors.cannotAlterClosedTransfer();
    const now = this.d.clock();
    const closed = await this.d.uow.run(async (tx) => {
      const cur = await tx.transfers.lock(t.id);
      if (!cur) throw Errors.transferNotFound();
      if (cur.status === 'closed') throw Errors.cannotAlterClosedTransfer();
      await tx.transfers.deleteRecipient(r.id, now);
      await tx.audit.record({
        transferId: t.id,
        date: now,
        event: 'recipient_removed',
        author: auditAuthor(actor),
        target: recipientTarget(r),
      });
      if ((await tx.transfers.recipients(t.id)).length === 0) {
        await this.d.transfers.closeIn(tx, actor, cur, 'last_recipient');
        return true;
      }
      if (cur.status === 'available') await this.d.notifier.recipientRemoved(tx, cur, r);
      return false;
    });
    if (closed) await dropTransferData(this.d.repos, this.d.files, t.id);
  }
}
