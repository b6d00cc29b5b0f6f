/**
 * At most `size` holders at once; the others wait in turn (first come, first served), each at most `waitMs`, after
 * which its entry fails with what `late()` makes. Used for the heaviest statements a node sends to PostgreSQL
 * (docs/architecture.md, "Lists and pages").
 */
export class Gate {
  private inside = 0;
  private readonly queue: Array<{ go: () => void }> = [];

  constructor(
    private readonly size: number,
    private readonly waitMs: number,
    private readonly late: () => Error,
  ) {}

  /** Runs fn once a place is free, and frees the place when fn has settled. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      return await fn();
    } finally {
      this.leave();
    }
  }

  /** How many wait for a place now (the metrics' ferry_list_reads_waiting). */
  get waiting(): number {
    return this.queue.length;
  }

  private enter(): Promise<void> {
    if (this.inside < this.size) {
      this.inside++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = {
        go: () => {
          clearTimeout(timer);
          this.inside++;
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(entry), 1);
        reject(this.late());
      }, this.waitMs);
      this.queue.push(entry);
    });
  }

  private leave(): void {
    this.inside--;
    this.queue.shift()?.go();
  }
}
