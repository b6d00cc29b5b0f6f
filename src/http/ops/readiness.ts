/** One part /readyz checks: resolves when it answers, rejects (or takes too long) when it does not. */
export interface ReadinessCheck {
  name: 'database' | 'store' | 'mail';
  check(): Promise<void>;
  /** A success is reused this long (ms): a load balancer polling every second must not open an SMTP session each time. */
  cacheMs?: number;
}

/** Longest a check may take before its part counts as failing: /readyz answers within about this bound. */
export const CHECK_TIMEOUT_MS = 2000;

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs every check at once, each bounded by CHECK_TIMEOUT_MS, and returns the names of the failing parts. A
 * check still running from an earlier call (even one that already timed out) is awaited rather than started
 * again, so a flood of /readyz requests against a hung database or mail server never piles up queries or
 * SMTP connections.
 */
export class Readiness {
  private readonly okUntil = new Map<string, number>();
  /** The check itself, until it settles: after a timeout it may still run, and is not started a second time. */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly checks: ReadinessCheck[],
    private readonly timeoutMs = CHECK_TIMEOUT_MS,
  ) {}

  async failing(): Promise<string[]> {
    const results = await Promise.all(this.checks.map(async (c) => ((await this.run(c)) ? null : c.name)));
    return results.filter((n): n is ReadinessCheck['name'] => n !== null);
  }

  private async run(c: ReadinessCheck): Promise<boolean> {
    if ((this.okUntil.get(c.name) ?? 0) > Date.now()) return true;
    let check = this.inFlight.get(c.name);
    if (!check) {
      check = Promise.resolve().then(() => c.check());
      this.inFlight.set(c.name, check);
      const settled = () => this.inFlight.delete(c.name);
      check.then(settled, settled);
    }
    try {
      await within(check, this.timeoutMs);
      if (c.cacheMs) this.okUntil.set(c.name, Date.now() + c.cacheMs);
      return true;
    } catch {
      this.okUntil.delete(c.name);
      return false;
    }
  }
}
