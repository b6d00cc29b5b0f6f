import type { Clock, MailOutbox, MailQueueRepository, QueuedMail, TrackingErrorRepository } from '../domain/ports';
import type { Logger } from '../log';
import { DeliveryError, MailTransport } from './transport';

/** Retry schedule for temporary failures: 30 s doubling up to 15 min, given up after 3 days. */
export const RETRY_FIRST_S = 30;
export const RETRY_MAX_S = 15 * 60;
export const GIVE_UP_AFTER_S = 3 * 86400;
/**
 * A claimed message is left alone by other processes and nodes this long, and the claim is renewed every
 * RENEW_MS while its node works through its batch; a node that dies (or loses the database) leaves its messages
 * to another node once the claim lapses: within CLAIM_S + 1 s (docs/deploying.md, "When a node dies").
 */
export const CLAIM_S = 30;
export const RENEW_MS = 10_000;
/**
 * A message is handed to the transport only while its claim has at least this long to run: a node that could not
 * renew its claims (the database away) stops sending before another node may take them, so no mail goes twice.
 */
export const SEND_MARGIN_S = 10;
/** Idle check for mail queued by another process (a CLI command while `serve` runs). */
export const IDLE_POLL_S = 30;

export function retryDelay(attempts: number): number {
  return Math.min(RETRY_MAX_S, RETRY_FIRST_S * 2 ** Math.max(0, attempts));
}

export interface MailQueueOptions {
  /** How long stop() waits for a delivery in flight before leaving it to the next start (default 10 s). */
  stopWaitMs?: number;
  /** Seconds between checks for mail queued by other processes while nothing is pending (default IDLE_POLL_S). */
  idlePollS?: number;
  /** The name this node's claims and log lines carry (src/compose/node.ts). */
  node?: string;
}

/** Messages claimed at once by one pass; each is sent before the next batch is claimed. */
const BATCH = 20;

/**
 * Mail is queued in the database in the unit of work of the change it reports (the notifier writes it
 * through the unit of work's repositories), and delivered by this worker, so a slow or down SMTP server never
 * fails or delays a REST call and nothing is lost across restarts. Messages are claimed before they are sent,
 * so `serve`, a CLI command and other nodes sharing the database never send the same one twice.
 */
export class MailQueue implements MailOutbox {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private rerun: Promise<void> | null = null;
  private started = false;
  private closed = false;
  /** Set when stop() gave up waiting: a late delivery result must not touch the (closed) DB. */
  private abandoned = false;

  constructor(
    private readonly repo: MailQueueRepository,
    private readonly tracking: TrackingErrorRepository,
    private readonly transport: MailTransport,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly opts: MailQueueOptions = {},
  ) {}

  start(): void {
    this.started = true;
    this.kick();
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) {
      let timeout: NodeJS.Timeout | undefined;
      const gaveUp = await Promise.race([
        this.running.then(() => false),
        new Promise<boolean>((resolve) => (timeout = setTimeout(() => resolve(true), this.opts.stopWaitMs ?? 10_000))),
      ]);
      clearTimeout(timeout);
      // The message in flight stays claimed in the DB and is sent again after the claim lapses: never lost.
      if (gaveUp) this.abandoned = true;
    }
    this.transport.close();
  }

  /** Delivers what is due now; resolves when this pass is over (tests and CLI commands await it). */
  flush(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      // The pass under way may have looked for due mail before the caller's mail was committed, so the
      // caller waits for one more pass that starts after it; callers arriving meanwhile share that pass.
      return (this.rerun ??= this.running.then(() => {
        this.rerun = null;
        return this.flush();
      }));
    }
    this.running = this.pass()
      .catch((e: Error) => this.log.error(`mail queue: ${e.message}`))
      .finally(() => {
        this.running = null;
        this.schedule();
      });
    return this.running;
  }

  /** New mail was committed: deliver it soon (a no-op until start()). */
  kick(): void {
    if (!this.started || this.closed) return;
    setImmediate(() => {
      if (!this.closed) void this.flush();
    });
  }

  private schedule(): void {
    if (!this.started || this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    const idle = this.opts.idlePollS ?? IDLE_POLL_S;
    const arm = (wait: number) => {
      if (this.closed) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.flush(), Math.max(1, wait) * 1000);
      this.timer.unref();
    };
    arm(idle);
    this.repo.nextDue(this.clock()).then(
      (due) => arm(Math.min(due ?? idle, idle)),
      () => {}, // the idle timer stays armed
    );
  }

  private async pass(): Promise<void> {
    const node = this.opts.node ?? 'this process';
    for (let round = 0; round < 100; round++) {
      if (this.closed) return;
      const now = this.clock();
      let until = now + CLAIM_S;
      const batch = await this.repo.claimDue(now, until, BATCH, node);
      if (batch.length === 0) return;
      for (const m of batch)
        if (m.takenFrom && m.takenFrom !== node)
          this.log.info(`node ${node}: took over mail ${m.id} to=${m.to} from ${m.takenFrom} (its claim lapsed)`);
      let held = new Set(batch.map((m) => m.id));
      // The claims are renewed while the batch is worked through, so a slow mail server delays nothing else.
      let renewing: Promise<void> = Promise.resolve();
      const renew = () =>
        (renewing = renewing.then(async () => {
          const next = this.clock() + CLAIM_S;
          const kept = await this.repo.renewClaims([...held], node, until, next).catch(() => null);
          if (kept === null) return; // the database is away: the claims run out, and sending stops before
          held = new Set(kept);
          until = next;
        }));
      const timer = setInterval(() => void renew(), RENEW_MS);
      timer.unref();
      try {
        for (const mail of batch) {
          // Claimed but not sent when stopping: sent again once the claim lapses, never lost.
          if (this.closed) return;
          if (!held.has(mail.id)) continue;
          if (this.clock() > until - SEND_MARGIN_S) await renew();
          // Not renewed in time (the database away): left to whichever node claims it next, never sent twice.
          if (!held.has(mail.id) || this.clock() > until - SEND_MARGIN_S) return;
          await this.deliver(mail);
          held.delete(mail.id);
        }
      } finally {
        clearInterval(timer);
        await renewing;
      }
    }
  }

  private async deliver(mail: QueuedMail): Promise<void> {
    const now = this.clock();
    let failure: DeliveryError | null = null;
    try {
      await this.transport.send(mail.message);
    } catch (e) {
      failure = e instanceof DeliveryError ? e : new DeliveryError(String((e as Error)?.message ?? e), false);
    }
    if (this.abandoned) return;
    if (!failure) {
      await this.repo.markSent(mail.id, this.clock());
      return;
    }
    if (failure.permanent) {
      await this.repo.markFailed(mail.id, failure.message);
      await this.bounce(mail, now, failure.message);
      this.log.info(`mail to=${mail.to} bounced: ${failure.message}`);
    } else if (now - mail.created > GIVE_UP_AFTER_S) {
      await this.repo.markFailed(mail.id, failure.message);
      // The sender learns that this recipient never got the mail, as with a bounce.
      await this.bounce(
        mail,
        now,
        `not delivered after ${mail.attempts + 1} attempts over ${Math.round((now - mail.created) / 3600)} h: ${failure.message}`,
      );
      this.log.error(`mail to=${mail.to} given up after ${mail.attempts + 1} attempts: ${failure.message}`);
    } else {
      await this.repo.markRetry(mail.id, now + retryDelay(mail.attempts), failure.message);
      this.log.info(`mail to=${mail.to} deferred (attempt ${mail.attempts + 1}): ${failure.message}`);
    }
  }

  private async bounce(mail: QueuedMail, date: number, details: string): Promise<void> {
    if (!mail.targetType || mail.targetId === null) return;
    await this.tracking.add(mail.targetType, mail.targetId, { type: 'bounce', date, details: details.slice(0, 500) });
  }
}
