/**
 * One background pass at a time over work claimed in the database (SHA-256 digests, background assembly, virus
 * scans): `kick()` runs `drain` now, or once more when it ends if a pass is running; `stop()` takes no more and
 * waits for the pass under way (what it had claimed lapses for another node if the process dies instead).
 */
export class JobRunner {
  private running: Promise<void> | null = null;
  private again = false;
  stopped = false;

  constructor(
    private readonly drain: () => Promise<void>,
    private readonly onError: (e: Error) => void,
  ) {}

  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain()
      .catch((e: Error) => this.onError(e))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          void this.kick();
        }
      });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
