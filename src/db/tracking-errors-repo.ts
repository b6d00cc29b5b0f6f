import type { Db } from './connection';
import type { TrackingError } from '../domain/model';

export type TrackingTarget = 'Recipient' | 'Guest';

/** Delivery problems (bounces) recorded against a Recipient or Guest, shown in their `errors`. */
export class TrackingErrorsRepo {
  constructor(private readonly db: Db) {}

  add(target: TrackingTarget, targetId: number, error: TrackingError): void {
    this.db
      .prepare('INSERT INTO tracking_errors (target_type, target_id, type, date, details) VALUES (?, ?, ?, ?, ?)')
      .run(target, targetId, error.type, error.date, error.details);
  }

  forTarget(target: TrackingTarget, targetId: number): TrackingError[] {
    return this.forTargets(target, [targetId]).get(targetId) ?? [];
  }

  /** Errors of many targets at once (lists of transfers), keyed by target id. */
  forTargets(target: TrackingTarget, ids: number[]): Map<number, TrackingError[]> {
    const out = new Map<number, TrackingError[]>();
    if (ids.length === 0) return out;
    // One target (a Transfer with one recipient, the commonest read) needs no JSON list to be built and parsed.
    const rows = (
      ids.length === 1
        ? this.db.prepare('SELECT target_id, type, date, details FROM tracking_errors WHERE target_type = ? AND target_id = ? ORDER BY id').all(target, ids[0])
        : this.db
            .prepare(
              `SELECT target_id, type, date, details FROM tracking_errors
               WHERE target_type = ? AND target_id IN (SELECT value FROM json_each(?)) ORDER BY id`,
            )
            .all(target, JSON.stringify(ids))
    ) as { target_id: number; type: string; date: number; details: string }[];
    for (const r of rows) {
      const list = out.get(r.target_id) ?? [];
      list.push({ type: r.type, date: r.date, details: r.details });
      out.set(r.target_id, list);
    }
    return out;
  }

  deleteOlderThan(ts: number): number {
    return this.db.prepare('DELETE FROM tracking_errors WHERE date < ?').run(ts).changes;
  }
}
