/** One piece of background work a node does on a timer (docs/architecture.md, "Background jobs"). */
export interface BackgroundJob {
  /** Names the job in the error log ("node <name>: <job>: <message>"). */
  name: string;
  /** How often it runs while the node serves. */
  everyMs: number;
  /**
   * Runs once as soon as the node starts too: work another node left when it died (its claims lapse) is taken
   * up without waiting a whole interval.
   */
  atStart?: boolean;
  /** One pass. Work it claims in the database is leased, so a pass cut short by a dead node passes to another. */
  run(): Promise<void>;
  /** Takes no more work and waits for what is under way (called on close, started or not). */
  stop?(): Promise<void>;
}

/**
 * The background jobs of one node (mail aside, which runs its own queue): each registered once, run every
 * `everyMs` from `start()`, one pass at a time (a tick while the last pass runs is skipped), its failures logged
 * with the node's name. `stop()` ends the timers, waits for the passes under way, then stops each job.
 */
export class BackgroundJobs {
  private readonly jobs: BackgroundJob[] = [];
  private readonly running = new Map<BackgroundJob, Promise<void>>();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private stopped = false;

  constructor(
    private readonly log: { error(msg: string): void },
    /** The node's name (`<host>:<pid>`), so a cluster's logs say which node failed. */
    private readonly node: string,
  ) {}

  register(job: BackgroundJob): void {
    this.jobs.push(job);
  }

  /** The registered jobs' names, in order (the start-up log, tests). */
  names(): string[] {
    return this.jobs.map((j) => j.name);
  }

  start(): void {
    if (this.stopped) return;
    for (const job of this.jobs) {
      if (job.atStart) this.pass(job);
      const timer = setInterval(() => this.pass(job), job.everyMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /** Runs a pass of `job` now unless one is under way (the timer's tick, and tests). */
  pass(job: BackgroundJob): Promise<void> {
    const under = this.running.get(job);
    if (under || this.stopped) return under ?? Promise.resolve();
    const p = job
      .run()
      .catch((e: unknown) =>
        this.log.error(`node ${this.node}: ${job.name}: ${e instanceof Error ? e.message : String(e)}`),
      )
      .finally(() => this.running.delete(job));
    this.running.set(job, p);
    return p;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await Promise.all(this.running.values());
    for (const job of this.jobs) await job.stop?.();
  }
}
