/**
 * Group commit: callers that need what they wrote to be on the disk share flushes. A flush covers every write
 * made before it began, so a caller waits for one that begins after its call: the one running now when none
 * is, else the next, which all callers arriving meanwhile share (at most two flushes per burst of callers).
 * A failed flush fails its callers; the next call begins a new one (docs/architecture.md, SQLite).
 */
export class GroupFlush {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly flush: () => Promise<void>) {}

  /** Resolves once a flush that began after this call has finished. */
  after(): Promise<void> {
    if (!this.running) return this.begin();
    if (!this.next) {
      const settled = () => {
        this.next = null;
        return this.begin();
      };
      this.next = this.running.then(settled, settled);
    }
    return this.next;
  }

  private begin(): Promise<void> {
    const run = this.flush().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }
}
