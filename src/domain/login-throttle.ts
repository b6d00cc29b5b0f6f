import { Errors } from './errors';
import type { LoginFailureRepository } from './ports';

/**
 * Login throttle: 5 failures per account and 20 per client address within 15 minutes, then 429 until the
 * oldest failure leaves the window.
 */
export const LOGIN_THROTTLE = { perAccount: 5, perIp: 20, windowS: 900 };

/** An attempt let through the throttle: settled once the password is checked. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
}

/**
 * The failures live in the database, so every node behind a load balancer (and a restart) counts the same
 * ones. Each attempt is recorded as a failure before its (slow) password check and taken back if it succeeds:
 * otherwise many attempts sent at once would all pass and guess far beyond the limit. Recording first and
 * counting after needs no lock: of attempts sent at once, the k-th recorded sees at least k failures.
 */
export class LoginThrottle {
  constructor(private readonly failures: LoginFailureRepository) {}

  async attempt(account: string, ip: string, now: number): Promise<LoginAttempt> {
    const accountKey = `user:${account}`;
    const ipKey = `ip:${ip}`;
    const mine = [await this.failures.add(accountKey, now), await this.failures.add(ipKey, now)];
    const since = now - LOGIN_THROTTLE.windowS;
    const [a, b] = [await this.failures.window(accountKey, since), await this.failures.window(ipKey, since)];
    // Counts include this attempt: more than the limit means the limit was already reached before it.
    const wait = Math.max(
      a.count > LOGIN_THROTTLE.perAccount ? (a.oldest ?? now) + LOGIN_THROTTLE.windowS - now : 0,
      b.count > LOGIN_THROTTLE.perIp ? (b.oldest ?? now) + LOGIN_THROTTLE.windowS - now : 0,
    );
    if (wait > 0) {
      for (const id of mine) await this.failures.remove(id);
      throw Errors.rateLimitExceeded(`retry_after=${Math.max(1, wait)}`);
    }
    return {
      succeeded: async () => {
        await this.failures.clear(accountKey);
        await this.failures.remove(mine[1]);
      },
    };
  }
}
