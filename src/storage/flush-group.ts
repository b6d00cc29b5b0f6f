/**
 * Flushes (fdatasync) running at once across all files. Each one holds a thread of libuv's pool (4 by default)
 * until the disk has the data; bounding them leaves the other threads to the writes and reads that keep the
 * uploads and downloads moving meanwhile.
 */
export class FlushSlots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  /** Runs `fn` once a slot is free; `begun` is called as it takes the slot. */
  async run(fn: () => Promise<void>, begun: () => void = () => {}): Promise<void> {
    if (this.busy < this.size) this.busy++;
    else await new Promise<void>((r) => this.waiting.push(r)); // the slot is handed over as it is
    begun();
    try {
      await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    }
  }
}

/**
 * Flushes of one file, shared by the writes that finish close together. A write that has finished asks for a
 * flush: when none is under way, one starts now; when one is, it may have begun before this write's bytes
 * reached the page cache, so the write waits for the next one, which starts as soon as the running one ends
 * and covers every write finished by then. Parallel chunks of a file thus share their flushes: each waits at
 * most about two flushes, however many there are. A flush still waiting for its slot has not begun, and takes
 * the writes that finish meanwhile.
 */
export class FlushGroup {
  /** The flush under way (or waiting for its slot), and whether it has begun. */
  private running: { done: Promise<void>; begun: boolean } | null = null;
  /** The flush that starts when the running one ends. */
  private queued: Promise<void> | null = null;
  private failures = 0;
  private lastError: Error | null = null;

  constructor(
    private readonly flush: () => Promise<void>,
    private readonly slots: FlushSlots,
  ) {}

  /** Taken as a write starts, for `after`. */
  mark(): number {
    return this.failures;
  }

  /**
   * Resolves once a flush that began after this call has ended. Rejects with that flush's error, or with an
   * earlier one when any flush failed since `mark`: after a failed fdatasync the kernel may have dropped pages
   * of writes under way and reports the error only once, so a later flush that succeeds proves nothing for them.
   */
  async after(mark: number): Promise<void> {
    const r = this.running;
    if (!r || !r.begun) await (r ?? this.start()).done;
    else await (this.queued ??= this.queueBehind(r.done));
    if (this.failures !== mark) throw this.lastError;
  }

  private queueBehind(running: Promise<void>): Promise<void> {
    return running
      .catch(() => {})
      .then(() => {
        this.queued = null;
        return (this.running ?? this.start()).done;
      });
  }

  private start(): { done: Promise<void>; begun: boolean } {
    const r = { done: Promise.resolve(), begun: false };
    r.done = this.slots
      .run(this.flush, () => {
        r.begun = true;
      })
      .catch((e: Error) => {
        this.failures++;
        this.lastError = e;
        throw e;
      })
      .finally(() => {
        if (this.running === r) this.running = null;
      });
    this.running = r;
    return r;
  }
}
