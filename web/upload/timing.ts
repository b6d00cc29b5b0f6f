/** Backoff and speed measurement for the upload engine (clock injected so tests control time). */
/** Exponential backoff with jitter: initial, ×2 each failure, capped. */
export class Backoff {
  private failures = 0;
  constructor(
    private readonly initialMs = 1000,
    private readonly maxMs = 30_000,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.failures);
    this.failures += 1;
    return Math.round(base * (0.8 + 0.4 * this.random()));
  }

  reset(): void {
    this.failures = 0;
  }
}

/** Bytes per second over a sliding window of acknowledged chunks. */
export class SpeedMeter {
  private samples: [number, number][] = [];
  private total = 0;

  constructor(
    private readonly now: () => number,
    private readonly windowMs = 10_000,
  ) {}

  reset(total = 0): void {
    this.total = total;
    this.samples = [[this.now(), total]];
  }

  add(bytes: number): void {
    this.total += bytes;
    const t = this.now();
    this.samples.push([t, this.total]);
    while (this.samples.length > 2 && this.samples[0][0] < t - this.windowMs) this.samples.shift();
  }

  rate(): number {
    if (this.samples.length < 2) return 0;
    const [t0, b0] = this.samples[0];
    const [t1, b1] = this.samples[this.samples.length - 1];
    const dt = Math.max(this.now(), t1) - t0;
    return dt > 0 ? ((b1 - b0) * 1000) / dt : 0;
  }
}
