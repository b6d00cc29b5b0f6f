import crypto from 'node:crypto';
import { ServiceError, notFound } from './errors';
import type { Guest } from './model';
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
  transaction<T>(fn: () => T): T;
}

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
    if (!g) throw notFound('guest_not_found');
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

  /** Refuses a Guest that is closed or past its expiry (for actions on its behalf). */
  assertUsable(guest: Guest): void {
    if (guest.status === 'closed') throw new ServiceError('guest_closed', 409);
    if (guest.expires !== null && guest.expires <= this.clock()) throw new ServiceError('guest_expired', 410);
  }
}
