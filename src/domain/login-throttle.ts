import { Errors, retryAfter } from './errors';
import type { UnitOfWork } from './ports';

/**
 * Login throttle: 5 failures per account and 20 per client address within 15 minutes, then 429 until the
 * oldest failure leaves the window.
 */
export const LOGIN_THROTTLE = { perAccount: 5, perIp: 20, windowS: 900 };

/** An attempt let through the throttle: settled once the password is checked. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
  /** Neither right nor wrong (the directory could not be asked): the attempt is not counted. */
  undecided(): Promise<void>;
}

/**
 * The failures live in the database, so every node behind a load balancer (and a restart) counts the same
 * ones. Each attempt is recorded as a failure before its (slow) password check and taken back if it succeeds:
 * otherwise many attempts sent at once would all pass and guess far beyond the limit. The check and the record
 * are one unit of work holding the account's and the address's keys, so attempts sent at once to any node
 * are counted one after the other.
 */
export class LoginThrottle {
  constructor(private readonly uow: UnitOfWork) {}

  async attempt(account: string, ip: string, now: number): Promise<LoginAttempt> {
    const accountKey = `user:${account}`;
    const ipKey = `ip:${ip}`;
    const since = now - LOGIN_THROTTLE.windowS;
    const [accountFailure, ipFailure] = await this.uow.run(async (tx) => {
      await tx.loginFailures.hold([accountKey, ipKey]);
      const [a, b] = [await tx.loginFailures.window(accountKey, since), await tx.loginFailures.window(ipKey, since)];
      const wait = Math.max(
        a.count >= LOGIN_THROTTLE.perAccount ? (a.oldest ?? now) + LOGIN_THROTTLE.windowS - now : 0,
        b.count >= LOGIN_THROTTLE.perIp ? (b.oldest ?? now) + LOGIN_THROTTLE.windowS - now : 0,
      );
      if (wait > 0) throw Errors.rateLimitExceeded(retryAfter(wait));
      return [await tx.loginFailures.add(accountKey, now), await tx.loginFailures.add(ipKey, now)];
    });
    return {
      succeeded: () =>
        this.uow.run(async (tx) => {
          await tx.loginFailures.clear(accountKey);
          await tx.loginFailures.remove(ipFailure);
        }),
      undecided: () =>
        this.uow.run(async (tx) => {
          await tx.loginFailures.remove(accountFailure);
          await tx.loginFailures.remove(ipFailure);
        }),
    };
  }
}
