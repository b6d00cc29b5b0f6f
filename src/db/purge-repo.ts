import type { PurgeRepository } from '../domain/ports';
import { affected, atomically, Db, slices } from './context';
import { REMINDER_LIMIT } from '../domain/reminder-limits';

/** Transfers whose files count as live (not closed): named, so that indexes that lead with status serve. */
const OPEN = ['created', 'started', 'uploading', 'available'] as const;
const SESSION_IDLE_S = 8 * 3600;
const SESSION_MAX_S = 7 * 86400;
/**
 * Throttle events older than this are forgotten: login and link-password failures (a 15-minute window) and the
 * reminders sent by hand (counted over REMINDER_LIMIT.windowS, a day).
 */
const LOGIN_FAILURES_KEPT_S = Math.max(86400, REMINDER_LIMIT.windowS);

/** The queries of the purge pass: what has expired, what is stale, and the deletion of old records. */
export class PurgeRepo implements PurgeRepository {
  constructor(private readonly db: Db) {}

  // Open statuses named, not `status <> 'closed'`: PostgreSQL then reads the index on (status, expires).
  async expiredOpenTransfers(now: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('transfers')
      .select('id')
      .where('status', 'in', OPEN)
      .where('expires', '<=', now)
      .orderBy('id')
      .execute();
    return rows.map((r) => Number(r.id));
  }

  async abandonedTransfers(createdBefore: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('transfers')
      .select('id')
      .where('status', 'in', ['created', 'started', 'uploading'])
      .where('created', '<', createdBefore)
      .orderBy('id')
      .execute();
    return rows.map((r) => Number(r.id));
  }

  async closedBefore(closedBefore: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('transfers')
      .select('id')
      .where('status', '=', 'closed')
      .where('closed', '<', closedBefore)
      .orderBy('id')
      .execute();
    return rows.map((r) => Number(r.id));
  }

  async deleteTransferRecords(id: number): Promise<void> {
    await this.deleteTransfersRecords([id]);
  }

  async deleteTransfersRecords(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await atomically(this.db, async (db) => {
      for (const part of slices(ids)) {
        await db
          .deleteFrom('tracking_errors')
          .where('target_type', '=', 'Recipient')
          .where('target_id', 'in', (eb) => eb.selectFrom('recipients').select('id').where('transfer_id', 'in', part))
          .execute();
        await db.deleteFrom('audit_log').where('transfer_id', 'in', part).execute();
        await db.deleteFrom('transfers').where('id', 'in', part).execute();
      }
    });
  }

  async deadStoreUploads(): Promise<{ transferId: number; fileId: number; uid: string; upload: string }[]> {
    const rows = await this.db
      .selectFrom('files as f')
      .innerJoin('transfers as t', 't.id', 'f.transfer_id')
      .select(['f.transfer_id', 'f.id', 'f.uid', 'f.store_upload'])
      .where('f.store_upload', 'is not', null)
      .where((eb) => eb.or([eb('f.deleted', 'is not', null), eb('t.status', '=', 'closed')]))
      .orderBy('f.id')
      .execute();
    return rows.map((r) => ({ transferId: r.transfer_id, fileId: r.id, uid: r.uid, upload: r.store_upload! }));
  }

  async liveFileKeys(transferIds: number[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const part of slices([...new Set(transferIds)])) {
      const rows = await this.db
        .selectFrom('files as f')
        .innerJoin('transfers as t', 't.id', 'f.transfer_id')
        .select(['f.transfer_id as t', 'f.uid as u'])
        .where('f.transfer_id', 'in', part)
        .where('f.deleted', 'is', null)
        .where('t.status', 'in', OPEN)
        .execute();
      for (const r of rows) out.add(`${r.t}/${r.u}`);
    }
    return out;
  }

  async deleteOldRows(cutoff: number, now: number): Promise<Record<string, number>> {
    return atomically(this.db, async (db) => {
      const out = {
        sessions: affected(
          await db
            .deleteFrom('sessions')
            .where((eb) => eb.or([eb('last_seen', '<', now - SESSION_IDLE_S), eb('created', '<', now - SESSION_MAX_S)]))
            .execute(),
        ),
        mail: affected(
          await db.deleteFrom('mail_queue').where('status', '<>', 'pending').where('created', '<', cutoff).execute(),
        ),
        tracking_errors: affected(await db.deleteFrom('tracking_errors').where('date', '<', cutoff).execute()),
        signatures: affected(await db.deleteFrom('used_signatures').where('expires', '<', now).execute()),
        guests: affected(
          await db
            .deleteFrom('guests')
            .where('status', '=', 'closed')
            .where('closed', '<', cutoff)
            .where('id', 'not in', (eb) =>
              eb.selectFrom('transfers').select('guest_id').where('guest_id', 'is not', null),
            )
            .execute(),
        ),
      };
      // Old login failures count for nothing any more; not reported (the report's keys are an interface).
      await db
        .deleteFrom('login_failures')
        .where('at', '<', now - LOGIN_FAILURES_KEPT_S)
        .execute();
      // A device cookie lives 400 days (browsers' limit); its record no longer than that after its last use.
      await db
        .deleteFrom('login_devices')
        .where('last_used', '<', now - 400 * 86400)
        .execute();
      return out;
    });
  }

  async countOldRows(cutoff: number, now: number): Promise<Record<string, number>> {
    const count = async (q: { select: unknown }) =>
      Number(
        ((await (q as any).select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()) as { n: number }).n,
      );
    const db = this.db;
    return {
      sessions: await count(
        db
          .selectFrom('sessions')
          .where((eb) => eb.or([eb('last_seen', '<', now - SESSION_IDLE_S), eb('created', '<', now - SESSION_MAX_S)])),
      ),
      mail: await count(db.selectFrom('mail_queue').where('status', '<>', 'pending').where('created', '<', cutoff)),
      tracking_errors: await count(db.selectFrom('tracking_errors').where('date', '<', cutoff)),
      signatures: await count(db.selectFrom('used_signatures').where('expires', '<', now)),
      guests: await count(
        db
          .selectFrom('guests')
          .where('status', '=', 'closed')
          .where('closed', '<', cutoff)
          .where('id', 'not in', (eb) =>
            eb.selectFrom('transfers').select('guest_id').where('guest_id', 'is not', null),
          ),
      ),
    };
  }
}
