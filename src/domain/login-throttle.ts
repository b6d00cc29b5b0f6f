import { Errors, retryAfter } from './errors';
import type { UnitOfWork } from './ports';

/**
 * Login throttle: 5 failures per account and 20 per client address within 15 minutes, then 429 until the
 * oldest failure leaves the window. A browser that signed in to the account before (its device cookie) is not
 * held by the account's count, which anyone can run up: it counts its own 5 failures instead, so the owner
 * still gets in from their usual browser while someone else locks the account (docs/hardening.md, "Login
 * throttle").
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

  /** `device`: the id of a browser known to have signed in to this account before, else null. */
  async attempt(account: string, ip: string, now: number, device: string | null = null): Promise<LoginAttempt> {
    const accountKey = `user:${account}`;
    const ipKey = `ip:${ip}`;
    const deviceKey = device === null ? null : `device:${device}:${account}`;
    // A known device is held by its own failures in place of the account's.
    const limitKey = deviceKey ?? accountKey;
    const since = now - LOGIN_THROTTLE.windowS;
    const [accountFailure, ipFailure] = await this.uow.run(async (tx) => {
      await tx.loginFailures.hold([accountKey, ipKey, ...(deviceKey ? [deviceKey] : [])]);
      const [a, b] = [await tx.loginFailures.window(limitKey, since), await tx.loginFailures.window(ipKey, since)];
      const wait = Math.max(
        a.count >= LOGIN_THROTTLE.perAccount ? (a.oldest ?? now) + LOGIN_THROTTLE.windowS - now : 0,
        b.count >= LOGIN_THROTTLE.perIp ? (b.oldest ?? now) + LOGIN_THROTTLE.windowS - now : 0,
      );
      if (wait > 0) throw Errors.rateLimitExceeded(retryAfter(wait));
      // The account's count runs on for every attempt, so unknown browsers stay locked out.
      const accountFailure = await tx.loginFailures.add(accountKey, now);
      if (deviceKey) await tx.loginFailures.add(deviceKey, now);
      return [accountFailure, await tx.loginFailures.add(ipKey, now)];
    });
    return {
      succeeded: () =>
        this.uow.run(async (tx) => {
          await tx.loginFailures.clear(accountKey);
          if (deviceKey) await tx.loginFailures.clear(deviceKey);
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
