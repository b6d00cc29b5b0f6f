import crypto from 'node:crypto';
import { Errors } from './errors';
import type { Guest, Transfer } from './model';
import type { Notifier } from './notifications';
import type { Clock } from './services';
import { GuestCreator, GuestLimits, parseGuestInput } from './guest-input';

/** What the guests service needs from storage; src/db/guests-repo.ts implements it. */
export interface GuestStore {
  insert(g: Omit<Guest, 'id' | 'status' | 'transferCount' | 'lastActivity' | 'closed' | 'errors'>): Guest;
  find(id: number): Guest | undefined;
  listOpenOf(userId: string): Guest[];
  listOpen(): Guest[];
  listExpired(now: number): Guest[];
  close(id: number, now: number): boolean;
  incrementTransferCount(id: number): void;
  touch(id: number, now: number): void;
  /** Transfers the Guest has made that count against valid_only_one_time: open ones, or ever made available. */
  countTransfersUsed(guestId: number): number;
  transaction<T>(fn: () => T): T;
}

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

/** 160 random bits, hex: the guest's bearer token (URL argument vid). */
export function newGuestToken(): string {
  return crypto.randomBytes(20).toString('hex');
}

/**
 * Guests: invitations to upload on a user's behalf. Creating, listing, reminding and closing them, and the
 * expiry pass run by purge. Mail goes out through the Notifier only after the database change is committed.
 */
export class GuestsService {
  constructor(
    private readonly store: GuestStore,
    private readonly notifier: Notifier,
    private readonly limits: () => GuestLimits,
    private readonly clock: Clock,
  ) {}

  create(creator: GuestCreator, body: unknown, lang: string | null): Guest {
    const now = this.clock();
    const draft = parseGuestInput(body, creator, this.limits(), now);
    const guest = this.store.insert({ ...draft, userId: creator.userId, token: newGuestToken(), lang, created: now });
    if (guest.options.includes('email_guest_created')) this.notifier.guestCreated(guest);
    if (guest.options.includes('email_guest_created_receipt')) this.notifier.guestCreatedReceipt(guest);
    return guest;
  }

  get(id: number): Guest {
    const g = this.store.find(id);
    if (!g) throw Errors.guestNotFound();
    return g;
  }

  /** The user's Guests that are still open; a deleted (closed) Guest leaves this view. */
  listOf(userId: string): Guest[] {
    return this.store.listOpenOf(userId);
  }

  listAll(): Guest[] {
    return this.store.listOpen();
  }

  /** Sends the invitation again. Only while the Guest can still use it. */
  remind(guest: Guest): void {
    this.assertUsable(guest);
    this.notifier.guestReminder(guest);
  }

  /** Closes the Guest (its token stops working at once) and tells the guest. Closing twice is a no-op. */
  delete(guest: Guest): void {
    if (!this.store.close(guest.id, this.clock())) return;
    this.notifier.guestDeleted(this.get(guest.id));
  }

  /** Open Guests past their expiry (what closeExpired would close). */
  expired(now: number): Guest[] {
    return this.store.listExpired(now);
  }

  /** Closes every open Guest past its expiry; mails the guest when email_guest_expired. Returns those closed. */
  closeExpired(now: number): Guest[] {
    const closed: Guest[] = [];
    for (const g of this.store.listExpired(now)) {
      if (!this.store.close(g.id, now)) continue; // another process closed it meanwhile
      const after = this.get(g.id);
      closed.push(after);
      if (after.options.includes('email_guest_expired')) this.notifier.guestExpired(after);
    }
    return closed;
  }

  /**
   * The terms of a new Transfer by this Guest. Refuses a closed or expired Guest, and a valid_only_one_time
   * Guest that already has a Transfer under way or sent (403 rest_access_forbidden, details
   * ["valid_only_one_time"]).
   */
  transferTermsFor(guestId: number): GuestTransferTerms {
    const g = this.get(guestId);
    this.assertUsable(g);
    if (g.options.includes('valid_only_one_time') && this.store.countTransfersUsed(g.id) > 0) {
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
  transferMadeAvailable(guestId: number): void {
    const now = this.clock();
    this.store.transaction(() => {
      const g = this.store.find(guestId);
      if (!g) return;
      this.store.incrementTransferCount(g.id);
      this.store.touch(g.id, now);
      if (g.options.includes('valid_only_one_time')) this.store.close(g.id, now);
    });
  }

  /** The first chunk of a Guest's Transfer arrived: tell the creator when email_upload_started is set. */
  uploadStarted(guestId: number, transfer: Transfer): void {
    const g = this.store.find(guestId);
    if (!g) return;
    this.store.touch(g.id, this.clock());
    if (g.options.includes('email_upload_started')) this.notifier.guestUploadStarted(g, transfer);
  }

  /**
   * The guest opened the upload page: tell the creator when email_upload_page_access is set. One mail per
   * visit: a reload within PAGE_VISIT_S of the guest's last activity (page or upload) does not mail again.
   */
  uploadPageOpened(guestId: number): void {
    const g = this.store.find(guestId);
    if (!g || g.status !== 'available') return;
    const now = this.clock();
    this.store.touch(g.id, now);
    const sameVisit = g.lastActivity !== null && now - g.lastActivity < PAGE_VISIT_S;
    if (g.options.includes('email_upload_page_access') && !sameVisit) this.notifier.guestUploadPageAccess(g);
  }

  /** Refuses a Guest that is closed or past its expiry (for actions on its behalf). */
  assertUsable(guest: Guest): void {
    if (guest.status === 'closed') throw Errors.guestClosed();
    if (guest.expires !== null && guest.expires <= this.clock()) throw Errors.guestExpired();
  }
}
