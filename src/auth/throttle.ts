/**
 * Login throttle: at most `limit` failures per key in a sliding window. Kept in memory: only `serve` takes
 * logins, and a restart forgetting the count only restores the allowance an attacker already had.
 */
export class Throttle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowS: number,
  ) {}

  /** Seconds until the key may try again, or 0 when it may now. */
  retryAfter(key: string, now: number): number {
    const recent = this.recent(key, now);
    return recent.length >= this.limit ? recent[0] + this.windowS - now : 0;
  }

  fail(key: string, now: number): void {
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent);
    if (this.failures.size > 100_000) this.failures.delete(this.failures.keys().next().value as string);
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  /** Takes back one failure recorded at `at` (an attempt counted in advance that turned out right). */
  undo(key: string, at: number): void {
    const list = this.failures.get(key);
    const i = list ? list.lastIndexOf(at) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - this.windowS);
  }
}
