import type { Clock, Notifier, Repositories, UnitOfWork } from './ports';

const DAY = 86400;

export interface AutomaticReminderMarks {
  /** transfer_automatic_reminder: days before expiry. */
  transfer: number[];
  /** guest_automatic_reminder: days before an invitation expires. */
  guest: number[];
}

export interface AutomaticRemindersDeps {
  repos: Repositories;
  uow: UnitOfWork;
  notifier: Notifier;
  clock: Clock;
  marks: () => AutomaticReminderMarks;
}

/**
 * Automatic reminders (docs/sharing.md, Automatic reminders), sent by the purge pass (in `serve` and by
 * `ferry purge`): at each configured number of days before a transfer expires, its recipients who have not
 * received every file are reminded; likewise guests who have not used their invitation. Each reminder is
 * claimed in the database (one row per target and day-mark) in the unit of work that queues its mail, so it is
 * sent once however many nodes and cron runs pass over it. A day-mark that had passed before the transfer was
 * made available (or the invitation made) is not sent: the first mail has just said the same. When several
 * marks are due at once (the server was down), one mail covers them.
 */
export class AutomaticReminders {
  constructor(private readonly d: AutomaticRemindersDeps) {}

  async run(now = this.d.clock()): Promise<{ recipients: number; guests: number }> {
    const marks = this.d.marks();
    return {
      recipients: await this.transfers(now, [...new Set(marks.transfer)]),
      guests: await this.guests(now, [...new Set(marks.guest)]),
    };
  }

  private async transfers(now: number, marks: number[]): Promise<number> {
    if (marks.length === 0) return 0;
    let sent = 0;
    const { repos } = this.d;
    for (const t of await repos.sharing.remindableTransfers(now, now + Math.max(...marks) * DAY)) {
      const due = dueMarks(marks, t.expires, now, t.madeAvailable ?? t.created);
      if (due.length === 0) continue;
      const files = await repos.transfers.files(t.id);
      const done = await repos.sharing.recipientsWithAll(
        t.id,
        files.map((f) => f.id),
      );
      for (const r of await repos.transfers.recipients(t.id)) {
        if (!r.email || done.has(r.id)) continue;
        const mailed = await this.d.uow.run(async (tx) => {
          if (!(await claimAll(due, (d) => tx.sharing.claimReminder('Recipient', r.id, d, now)))) return false;
          await this.d.notifier.transferReminder(tx, t, files, [r]);
          await tx.audit.record({
            transferId: t.id,
            date: now,
            event: 'transfer_automatic_reminder',
            author: { type: 'User', id: 'ferry', ip: null },
            target: { type: 'Recipient', id: String(r.id), email: r.email },
          });
          return true;
        });
        if (mailed) sent++;
      }
    }
    return sent;
  }

  private async guests(now: number, marks: number[]): Promise<number> {
    if (marks.length === 0) return 0;
    let sent = 0;
    for (const g of await this.d.repos.guests.listOpen()) {
      if (g.status !== 'available' || g.expires === null || g.expires <= now || g.transferCount > 0) continue;
      const due = dueMarks(marks, g.expires, now, g.created);
      if (due.length === 0) continue;
      const mailed = await this.d.uow.run(async (tx) => {
        if (!(await claimAll(due, (d) => tx.sharing.claimReminder('Guest', g.id, d, now)))) return false;
        await this.d.notifier.guestReminder(tx, g);
        return true;
      });
      if (mailed) sent++;
    }
    return sent;
  }
}

/** The marks reached by now that had not been reached yet when the transfer (or invitation) began. */
export function dueMarks(marks: number[], expires: number, now: number, began: number): number[] {
  return marks.filter((d) => expires - d * DAY <= now && expires - d * DAY > began);
}

/** Claims every due mark; true when at least one was not claimed before (a mail is then due). */
async function claimAll(due: number[], claim: (d: number) => Promise<boolean>): Promise<boolean> {
  let any = false;
  for (const d of due) if (await claim(d)) any = true;
  return any;
}
