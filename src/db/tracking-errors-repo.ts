import type { TrackingError } from '../domain/model';
import type { TrackingErrorRepository, TrackingTarget } from '../domain/ports';
import { Db, RepoContext, rows as select, selectSql, slices } from './context';

/** Delivery problems (bounces) recorded against a Recipient or Guest, shown in their `errors`. */
export class TrackingErrorsRepo implements TrackingErrorRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async add(target: TrackingTarget, targetId: number, error: TrackingError): Promise<void> {
    await this.db
      .insertInto('tracking_errors')
      .values({ target_type: target, target_id: targetId, type: error.type, date: error.date, details: error.details })
      .execute();
  }

  async forTarget(target: TrackingTarget, targetId: number): Promise<TrackingError[]> {
    return (await this.forTargets(target, [targetId])).get(targetId) ?? [];
  }

  async forTargets(target: TrackingTarget, ids: number[]): Promise<Map<number, TrackingError[]>> {
    const out = new Map<number, TrackingError[]>();
    for (const part of slices([...new Set(ids)])) {
      const q = this.db
        .selectFrom('tracking_errors')
        .select(['target_id', 'type', 'date', 'details'])
        .where('target_type', '=', target);
      // One target (a Transfer with one recipient, the commonest read) is a fixed statement.
      const rows =
        part.length === 1
          ? await selectSql<{ target_id: number; type: string; date: number; details: string }>(
              this.db,
              this.ctx,
              'SELECT target_id, type, date, details FROM tracking_errors WHERE target_type = ? AND target_id = ? ORDER BY id',
              [target, part[0]],
            )
          : await select(this.db, this.ctx, q.where('target_id', 'in', part).orderBy('id'));
      addTrackingRows(out, rows);
    }
    return out;
  }
}

/** A tracking error as read, with its target's id. */
export interface TrackingRow {
  target_id: number;
  type: string;
  date: number;
  details: string;
}

/** Adds tracking errors from their rows (in id order) to `out`, by target id. */
export function addTrackingRows(out: Map<number, TrackingError[]>, rows: TrackingRow[]): void {
  for (const r of rows) {
    const list = out.get(Number(r.target_id)) ?? [];
    list.push({ type: r.type, date: Number(r.date), details: r.details });
    out.set(Number(r.target_id), list);
  }
}
