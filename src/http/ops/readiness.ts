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
 * check still running from an earlier call is awaited rather than started again, so a flood of /readyz
 * requests never piles up database queries or SMTP connections.
 */
export class Readiness {
  private readonly okUntil = new Map<string, number>();
  private readonly running = new Map<string, Promise<boolean>>();

  constructor(private readonly checks: ReadinessCheck[], private readonly timeoutMs = CHECK_TIMEOUT_MS) {}

  async failing(): Promise<string[]> {
    const results = await Promise.all(this.checks.map(async (c) => ((await this.run(c)) ? null : c.name)));
    return results.filter((n): n is ReadinessCheck['name'] => n !== null);
  }

  private run(c: ReadinessCheck): Promise<boolean> {
    if ((this.okUntil.get(c.name) ?? 0) > Date.now()) return Promise.resolve(true);
    let p = this.running.get(c.name);
    if (!p) {
      p = within(Promise.resolve().then(() => c.check()), this.timeoutMs).then(
        () => {
          if (c.cacheMs) this.okUntil.set(c.name, Date.now() + c.cacheMs);
          return true;
        },
        () => {
          this.okUntil.delete(c.name);
          return false;
        },
      );
      const done = p.finally(() => this.running.delete(c.name));
      this.running.set(c.name, done);
      p = done;
    }
    return p;
  }
}
