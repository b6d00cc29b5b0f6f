import { Errors } from './errors';
import type { GuestsService } from './guests';
import type { TransferDraft } from './transfer-input';
import type { Actor } from './model';
import type { Tx } from './ports';

/** Who a new Transfer belongs to and under which terms it is sent, once the sender's kind is applied. */
export interface SenderTerms {
  ownerId: string;
  guestId: number | null;
  from: string;
  options: string[];
  recipients: string[];
  /** Whether the recipients join the owner's frequent recipients (only those the owner chose themselves). */
  remember: boolean;
}

/** True when the request's `from` and `options` are ignored (and so not even checked): a guest's are fixed. */
export function senderFieldsIgnored(actor: Actor): boolean {
  return actor.type === 'guest';
}

/**
 * The one place where the kind of sender changes the rules of POST /transfer (spec: the body table's `from`
 * and `options` rows):
 * - Service Provider user: `from` must be one of the user's own addresses;
 * - remote user / remote application: `from` is taken as given (its format was checked);
 * - guest: the Guest's e-mail and transfer_options apply, the Guest's creator owns the Transfer, and the
 *   Guest's own options (can_only_send_to_me, valid_only_one_time…) are applied by GuestsService.
 * add_me_to_recipients then adds the sender once.
 */
export async function senderTerms(
  tx: Tx,
  actor: Actor,
  draft: TransferDraft,
  guests: GuestsService,
): Promise<SenderTerms> {
  let terms: SenderTerms;
  if (actor.type === 'guest' && actor.guestId !== null) {
    const g = await guests.transferTermsFor(tx, actor.guestId);
    terms = {
      ownerId: g.ownerId,
      guestId: g.guestId,
      from: g.from,
      options: g.options,
      recipients: g.recipients ?? draft.recipients,
      remember: false,
    };
  } else {
    const from = draft.from;
    if (from === null) throw Errors.badEmail('from');
    if (actor.fromMustBeOwn && !actor.emails.some((e) => e.toLowerCase() === from.toLowerCase())) {
      throw Errors.badEmail('from');
    }
    terms = {
      ownerId: actor.id,
      guestId: null,
      from,
      options: draft.options,
      recipients: draft.recipients,
      remember: true,
    };
  }
  const me = terms.from.toLowerCase();
  if (terms.options.includes('add_me_to_recipients') && !terms.recipients.some((r) => r.toLowerCase() === me)) {
    terms.recipients = [...terms.recipients, terms.from];
  }
  return terms;
}

/**
 * POST /transfer/{id}/recipient under a guest token: a guest that may only send to its creator cannot add
 * anyone (it would get round can_only_send_to_me); other guests add like their creator would.
 */
export async function assertMayAddRecipient(actor: Actor, guests: GuestsService): Promise<void> {
  if (actor.type !== 'guest' || actor.guestId === null) return;
  const g = await guests.get(actor.guestId);
  guests.assertUsable(g);
  if (g.options.includes('can_only_send_to_me')) throw Errors.restAccessForbidden('can_only_send_to_me');
}
