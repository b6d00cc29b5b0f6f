import type { Page } from './paging';
import { Errors } from './errors';
import { ReminderLimit, reminderLimitReached } from './reminder-limits';
import type { Guest, Transfer } from './model';
import type { Clock, IdGenerator, Notifier, Repositories, Tx, UnitOfWork } from './ports';
import type { GuestCreator, GuestDraft } from './guest-input';

/**
 * What a Transfer created under a guest token is made of, whatever the request said (spec: POST /transfer,
 * `from` and `options` under Guest authentication). The transfers service applies these in one place.
 */
export interface GuestTransferTerms {
  guestId: number;
  /** The Guest's creator owns the Transfer: sees it, manages it, receives its owner mails. */
  ownerId: string;
  from: string;
  options: string[];
  /** can_only_send_to_me: the recipients, replacing any given. null: the recipients given apply. */
  recipients: string[] | null;
}

/** Page loads closer together than this count as one visit of the guest upload page. */
export const PAGE_VISIT_S = 300;

export interface GuestDeps {
  repos: Repositories;
  uow: UnitOfWork;
  notifier: Notifier;
  clock: Clock;
  ids: IdGenerator;
}

/**
 * Guests: invitations to upload on a user's behalf. Creating, listing, reminding and closing them, and the
 * expiry pass run by purge. Mail is queued in the unit of work of the change it reports.
 */
export class GuestsService {
  constructor(private readonly d: GuestDeps) {}

  /** The draft comes checked from the edge (parseGuestInput). */
  create(creator: GuestCreator, draft: GuestDraft, lang: string | null): Promise<Guest> {
    const now = this.d.clock();
    return this.d.uow.run(async (tx) => {
      const guest = await tx.guests.insert({
        ...draft,
        userId: creator.userId,
        token: this.d.ids.guestToken(),
        lang,
        created: now,
      });
      // The receipt says the invitation "was sent": without the invitation mail there is nothing to confirm (the
      // creator got the upload link in the answer instead).
      if (guest.options.includes('email_guest_created')) {
        await this.d.notifier.guestCreated(tx, guest);
        if (guest.options.includes('email_guest_created_receipt')) await this.d.notifier.guestCreatedReceipt(tx, guest);
      }
      return guest;
    });
  }

  async get(id: number, repos: Repositories = this.d.repos): Promise<Guest> {
    const g = await repos.guests.find(id);
    if (!g) throw Errors.guestNotFound();
    return g;
  }

  /** The user's Guests that are still open; a deleted (closed) Guest leaves this view. */
  listOf(userId: string): Promise<Guest[]> {
    return this.d.repos.guests.listOpenOf(userId);
  }

  listAll(): Promise<Guest[]> {
    return this.d.repos.guests.listOpen();
  }

  /** Every open Guest, or the page asked for, read from the database a page at a time (docs/architecture.md). */
  pageAll(page: Page | null): Promise<Guest[]> {
    return page ? this.d.repos.guests.listOpenPage(page) : this.listAll();
  }

  /** Sends the invitation again. Only while the Guest can still use it, and REMINDER_LIMIT times a day. */
  async remind(guest: Guest): Promise<void> {
    this.assertUsable(guest);
    await this.d.uow.run(async (tx) => {
      await tx.guests.lock(guest.id); // reminders asked at once are counted one after the other
      const now = this.d.clock();
      const limit = new ReminderLimit(tx);
      const wait = await limit.wait({ type: 'guest', id: guest.id }, now);
      if (wait > 0) throw reminderLimitReached(wait);
      await limit.sent({ type: 'guest', id: guest.id }, now);
      await this.d.notifier.guestReminder(tx, guest);
    });
  }

  /** Closes the Guest (its token stops working at once) and tells the guest. Closing twice is a no-op. */
  async delete(guest: Guest): Promise<void> {
    await this.d.uow.run(async (tx) => {
      if (!(await tx.guests.close(guest.id, this.d.clock()))) return;
      await this.d.notifier.guestDeleted(tx, await this.get(guest.id, tx));
    });
  }

  /** Open Guests past their expiry (what closeExpired would close). */
  expired(now: number): Promise<Guest[]> {
    return this.d.repos.guests.listExpired(now);
  }

  /** Closes every open Guest past its expiry; mails the guest when email_guest_expired. Returns those closed. */
  async closeExpired(now: number): Promise<Guest[]> {
    const closed: Guest[] = [];
    for (const g of await this.d.repos.guests.listExpired(now)) {
      const after = await this.d.uow.run(async (tx) => {
        if (!(await tx.guests.close(g.id, now))) return null; // another process closed it meanwhile
        const fresh = await this.get(g.id, tx);
        if (fresh.options.includes('email_guest_expired')) await this.d.notifier.guestExpired(tx, fresh);
        return fresh;
      });
      if (after) closed.push(after);
    }
    return closed;
  }

  /**
   * The terms of a new Transfer by this Guest, inside the unit of work that creates it (the Guest's row is
   * held, so two Transfers started at once by a one-time Guest cannot both pass). Refuses a closed or expired
   * Guest, and a valid_only_one_time Guest that already has a Transfer under way or sent (403
   * rest_access_forbidden, details ["valid_only_one_time"]).
   */
  async transferTermsFor(tx: Tx, guestId: number): Promise<GuestTransferTerms> {
    const g = await tx.guests.lock(guestId);
    if (!g) throw Errors.guestNotFound();
    this.assertUsable(g);
    if (g.options.includes('valid_only_one_time') && (await tx.guests.countTransfersUsed(g.id)) > 0) {
      throw Errors.restAccessForbidden('valid_only_one_time');
    }
    return {
      guestId: g.id,
      ownerId: g.userId,
      from: g.email,
      options: [...g.transferOptions],
      recipients: g.options.includes('can_only_send_to_me') ? [g.userEmail] : null,
    };
  }

  /** A Transfer by a Guest became available: count it, and close a one-time Guest (its token stops working). */
  async transferMadeAvailable(tx: Tx, guestId: number): Promise<void> {
    const now = this.d.clock();
    const g = await tx.guests.lock(guestId);
    if (!g) return;
    await tx.guests.incrementTransferCount(g.id);
    await tx.guests.touch(g.id, now);
    if (g.options.includes('valid_only_one_time')) await tx.guests.close(g.id, now);
  }

  /** The first chunk of a Guest's Transfer arrived: tell the creator when email_upload_started is set. */
  async uploadStarted(tx: Tx, guestId: number, transfer: Transfer): Promise<void> {
    const g = await tx.guests.find(guestId);
    if (!g) return;
    await tx.guests.touch(g.id, this.d.clock());
    if (g.options.includes('email_upload_started')) await this.d.notifier.guestUploadStarted(tx, g, transfer);
  }

  /**
   * The guest opened the upload page: tell the creator when email_upload_page_access is set. One mail per
   * visit: a reload within PAGE_VISIT_S of the guest's last activity (page or upload) does not mail again.
   */
  async uploadPageOpened(guestId: number): Promise<void> {
    await this.d.uow.run(async (tx) => {
      const g = await tx.guests.lock(guestId);
      if (g?.status !== 'available') return;
      const now = this.d.clock();
      await tx.guests.touch(g.id, now);
      const sameVisit = g.lastActivity !== null && now - g.lastActivity < PAGE_VISIT_S;
      if (g.options.includes('email_upload_page_access') && !sameVisit)
        await this.d.notifier.guestUploadPageAccess(tx, g);
    });
  }

  /**
   * A Transfer a Guest created takes data and completes only while the Guest is still invited: once the owner
   * withdrew it (409 guest_closed) or it expired (410 guest_expired), its unfinished Transfers stop, whoever
   * sends (the chunk-upload key outlives the guest's token). Pass `tx` to hold the Guest's row.
   */
  async assertStillInvited(guestId: number, tx?: Tx): Promise<void> {
    const g = tx ? await tx.guests.lock(guestId) : await this.d.repos.guests.find(guestId);
    if (!g) throw Errors.guestClosed();
    this.assertUsable(g);
  }

  /** Refuses a Guest that is closed or past its expiry (for actions on its behalf). */
  assertUsable(guest: Guest): void {
    if (guest.status === 'closed') throw Errors.guestClosed();
    if (guest.expires !== null && guest.expires <= this.d.clock()) throw Errors.guestExpired();
  }
}
