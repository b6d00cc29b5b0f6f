/** Speed measurement for the upload engine (clock injected so tests control time). */
/**
 * Bytes per second over a sliding window, fed with bytes as they leave (the upload progress of each chunk
 * request), not as chunks are acknowledged: on a slow link a 5 MiB chunk takes seconds, and counting whole
 * chunks made the rate jump between 0 and nonsense. The first second is a warm-up that is not measured (the
 * first bytes fill socket buffers faster than the link drains them), and no rate is given before
 * `minMs` of measurement: an early guess is worse than "measuring".
 */
export class SpeedMeter {
  /** [time, total bytes] samples; the first is the baseline the window is measured from. */
  private samples: [number, number][] = [];
  private total = 0;
  private started = 0;

  constructor(
    private readonly now: () => number,
    private readonly windowMs = 10_000,
    private readonly warmUpMs = 1_000,
    private readonly minMs = 2_500,
  ) {}

  reset(total = 0): void {
    this.total = total;
    this.started = this.now();
    this.samples = [[this.started, total]];
  }

  add(bytes: number): void {
    if (bytes <= 0) return;
    this.total += bytes;
    const t = this.now();
    if (t - this.started < this.warmUpMs) {
      this.samples = [[t, this.total]]; // still warming up: the baseline moves with it
      return;
    }
    this.samples.push([t, this.total]);
    // Keep one sample at or before the window's start as the baseline.
    while (this.samples.length > 2 && this.samples[1][0] <= t - this.windowMs) this.samples.shift();
  }

  /** How long the current figures have been measured (ms). */
  measuredMs(): number {
    return this.samples.length ? Math.max(0, this.now() - this.samples[0][0]) : 0;
  }

  /** Bytes per second up to now (a stall lowers it); 0 while unknown. */
  rate(): number {
    if (this.samples.length < 2) return 0;
    const t = this.now();
    const [t0, b0] = this.samples[0];
    const dt = t - t0;
    if (dt < this.minMs) return 0;
    return ((this.total - b0) * 1000) / dt;
  }
}
