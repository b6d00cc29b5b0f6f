import type { TrackingError } from '../domain/model';
import type { TransferExtras, TransferExtrasRepository, VirusScanRecord } from '../domain/ports';
import { amongIds, type Db, idsParam, type RepoContext, selectPrepared } from './context';
import { type DeliveryRow, deliveryOf } from './mail-queue-repo';
import type { Dialect } from './migrations';
import { type DoneCountRow, type SharingControlsRow, sharingViews } from './sharing-repo';
import { addTrackingRows, type TrackingRow } from './tracking-errors-repo';
import { addScanRows, type ScanRow } from './virus-scan-repo';

/**
 * What a list of Transfers is shown with beside its files and recipients (the port's comment says what), in one
 * statement: five subqueries, each giving its rows as one JSON array, with the Transfers' ids bound as one
 * parameter (an array on PostgreSQL, a JSON list on SQLite). One round trip instead of five, and a statement whose
 * text does not change with the list's length, which PostgreSQL keeps prepared (docs/architecture.md, "Lists and
 * pages").
 * The rows are those the repositories' own reads give (sharing-repo, virus-scan-repo, tracking-errors-repo,
 * mail-queue-repo), and are turned into records by the same functions.
 */
export class TransferExtrasRepo implements TransferExtrasRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async of(transferIds: number[]): Promise<TransferExtras> {
    const ids = [...new Set(transferIds)];
    if (!ids.length) return { sharing: new Map(), scans: new Map(), errors: new Map(), delivery: new Map() };
    const list = idsParam(this.ctx, ids);
    const [row] = await selectPrepared<Record<'controls' | 'counts' | 'scans' | 'errors' | 'mails', unknown>>(
      this.db,
      this.ctx,
      statementFor(this.ctx.dialect),
      [list, list, list, 'Recipient', 'Recipient'],
    );
    const controls = rowsOf(row.controls).map(
      ([transfer_id, download_limit, password_hash]): SharingControlsRow => ({
        transfer_id,
        download_limit,
        password_hash,
      }),
    );
    const counts = rowsOf(row.counts).map(
      ([transfer_id, recipient_id, file_id, n]): DoneCountRow => ({ transfer_id, recipient_id, file_id, n }),
    );
    const scans = new Map<number, VirusScanRecord>();
    addScanRows(
      scans,
      rowsOf(row.scans).map(
        ([transfer_id, state, started, finished, error, file_id, signature]): ScanRow => ({
          transfer_id,
          state,
          started,
          finished,
          error,
          file_id,
          signature,
        }),
      ),
    );
    const errors = new Map<number, TrackingError[]>();
    addTrackingRows(
      errors,
      rowsOf(row.errors).map(([target_id, type, date, details]): TrackingRow => ({ target_id, type, date, details })),
    );
    // In id order: the last row seen for a recipient is its latest mail.
    const delivery = new Map(
      rowsOf(row.mails).map(([id, target_id, status, attempts, last_error, created, sent, next_attempt]) => {
        const r: DeliveryRow = { id, target_id, status, attempts, last_error, created, sent, next_attempt };
        return [Number(target_id), deliveryOf(r)];
      }),
    );
    return { sharing: sharingViews(ids, controls, counts), scans, errors, delivery };
  }
}

/**
 * A subquery's rows: PostgreSQL's driver parses a json column itself, SQLite gives the text. Positional, as the
 * columns are listed in statementFor(); they are typed where they are named, above.
 */
function rowsOf(v: unknown): any[][] {
  return (typeof v === 'string' ? JSON.parse(v) : v) as unknown[][];
}

const statements = new Map<Dialect, string>();

/** The statement's text for a database, made once. */
function statementFor(dialect: Dialect): string {
  let text = statements.get(dialect);
  if (text) return text;
  const pg = dialect === 'postgres';
  const among = amongIds(dialect);
  const rows = (columns: string, order: string) =>
    pg
      ? `coalesce(json_agg(json_build_array(${columns}) order by ${order}), '[]'::json)`
      : `json_group_array(json_array(${columns}) order by ${order})`;
  // The Transfers' recipients once (a CTE named twice is computed once), for their claims, bounces and mails.
  text = `with rs as (select id, transfer_id from recipients where transfer_id ${among})
select
  (select ${rows('transfer_id, download_limit, password_hash', 'transfer_id')}
     from transfer_sharing where transfer_id ${among}) as controls,
  (select ${rows('transfer_id, recipient_id, file_id, n', 'transfer_id, recipient_id, file_id')}
     from (select r.transfer_id, c.recipient_id, c.file_id, count(*) as n
             from download_claims c inner join rs r on r.id = c.recipient_id
            where c.done is not null
            group by r.transfer_id, c.recipient_id, c.file_id) d) as counts,
  (select ${rows('s.transfer_id, s.state, s.started, s.finished, s.error, f.file_id, f.signature', 's.transfer_id, f.file_id')}
     from virus_scans s left join virus_findings f on f.transfer_id = s.transfer_id
    where s.transfer_id ${among}) as scans,
  (select ${rows('e.target_id, e.type, e.date, e.details', 'e.id')}
     from tracking_errors e where e.target_type = ? and e.target_id in (select id from rs)) as errors,
  (select ${rows('m.id, m.target_id, m.status, m.attempts, m.last_error, m.created, m.sent, m.next_attempt', 'm.id')}
     from mail_queue m where m.target_type = ? and m.target_id in (select id from rs)) as mails`;
  statements.set(dialect, text);
  return text;
}
