import { Errors, retryAfter } from './errors';
import type { Tx } from './ports';

/**
 * Reminders asked for by hand (PUT /transfer {remind}, PUT /recipient {remind}, PUT /guest {remind}) are mail to
 * someone else's address, sent as often as a button is pressed or a script loops: each recipient and each
 * guest gets at most 3 of them in 24 hours (docs/sharing.md, "Reminders"), then 429 rate_limit_exceeded with
 * details ["remind", "retry_after=N"] and Retry-After. The automatic reminders run on their own schedule and
 * are not counted; nor is "send again" of a mail that was deferred or bounced (no second mail arrives).
 */
export const REMINDER_LIMIT = { perTarget: 3, windowS: 86400 };

export type ReminderTarget = { type: 'recipient' | 'guest'; id: number };

/**
 * The reminders sent lately are kept as timestamped events under a key of their own, in the same store as the
 * throttles' failures (shared by every node, kept a day). Call inside the unit of work that queues the mail,
 * with the Transfer's or Guest's row locked, so reminders asked at once on any node are counted one by one.
 */
export class ReminderLimit {
  constructor(private readonly tx: Tx) {}

  /** Seconds until the target may be reminded again; 0 when it may be now. */
  async wait(target: ReminderTarget, now: number): Promise<number> {
    const w = await this.tx.loginFailures.window(keyOf(target), now - REMINDER_LIMIT.windowS);
    return w.count >= REMINDER_LIMIT.perTarget ? Math.max(1, (w.oldest ?? now) + REMINDER_LIMIT.windowS - now) : 0;
  }

  async sent(target: ReminderTarget, now: number): Promise<void> {
    await this.tx.loginFailures.add(keyOf(target), now);
  }
}

export function reminderLimitReached(waitS: number) {
  return Errors.rateLimitExceeded('remind', retryAfter(waitS));
}

function keyOf(t: ReminderTarget): string {
  return `remind:${t.type}:${t.id}`;
}
