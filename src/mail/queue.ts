import type { MailQueueRepo, OutgoingMessage, QueuedMail } from '../db/mail-queue-repo';
import type { TrackingErrorsRepo, TrackingTarget } from '../db/tracking-errors-repo';
import type { Clock } from '../domain/services';
import type { Logger } from '../log';
import { DeliveryError, MailTransport } from './transport';

/** Retry schedule for temporary failures: 30 s doubling up to 15 min, given up after 3 days. */
export const RETRY_FIRST_S = 30;
export const RETRY_MAX_S = 15 * 60;
export const GIVE_UP_AFTER_S = 3 * 86400;

export function retryDelay(attempts: number): number {
  return Math.min(RETRY_MAX_S, RETRY_FIRST_S * 2 ** Math.max(0, attempts));
}

/**
 * Mail is queued in SQLite in the same breath as the change it reports, and delivered by this worker, so a
 * slow or down SMTP server never fails or delays a REST call and nothing is lost across restarts.
 */
export class MailQueue {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private started = false;
  private closed = false;

  constructor(
    private readonly repo: MailQueueRepo,
    private readonly tracking: TrackingErrorsRepo,
    private readonly transport: MailTransport,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  enqueue(msg: OutgoingMessage, target: { type: TrackingTarget; id: number } | null): void {
    this.repo.enqueue(msg, this.clock(), target);
    this.kick();
  }

  start(): void {
    this.started = true;
    this.kick();
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.transport.close();
  }

  /** Delivers what is due now; resolves when this pass is over (tests and CLI commands await it). */
  flush(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.running ??= this.pass().finally(() => {
      this.running = null;
      this.schedule();
    });
    return this.running;
  }

  private kick(): void {
    if (!this.started || this.closed) return;
    setImmediate(() => {
      if (!this.closed) void this.flush();
    });
  }

  private schedule(): void {
    if (!this.started || this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    const wait = this.repo.nextDue(this.clock());
    if (wait === null) return;
    this.timer = setTimeout(() => void this.flush(), Math.max(1, wait) * 1000);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      const batch = this.repo.due(this.clock(), 20);
      if (batch.length === 0) return;
      for (const mail of batch) {
        if (this.closed && round > 0) return;
        await this.deliver(mail);
      }
    }
  }

  private async deliver(mail: QueuedMail): Promise<void> {
    const now = this.clock();
    try {
      await this.transport.send(mail.message);
      this.repo.markSent(mail.id, this.clock());
    } catch (e) {
      const err = e instanceof DeliveryError ? e : new DeliveryError(String((e as Error)?.message ?? e), false);
      if (err.permanent) {
        this.repo.markFailed(mail.id, err.message);
        if (mail.targetType && mail.targetId !== null) {
          this.tracking.add(mail.targetType as TrackingTarget, mail.targetId, { type: 'bounce', date: now, details: err.message });
        }
        this.log.info(`mail to=${mail.to} bounced: ${err.message}`);
      } else if (now - mail.created > GIVE_UP_AFTER_S) {
        this.repo.markFailed(mail.id, err.message);
        this.log.error(`mail to=${mail.to} given up after ${mail.attempts + 1} attempts: ${err.message}`);
      } else {
        this.repo.markRetry(mail.id, now + retryDelay(mail.attempts), err.message);
        this.log.info(`mail to=${mail.to} deferred (attempt ${mail.attempts + 1}): ${err.message}`);
      }
    }
  }
}
