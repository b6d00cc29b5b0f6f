import type { Page } from '../domain/paging';
import type {
  TransferExtras,
  TransferExtrasRepository,
  TransferOwner,
  TransferPageRead,
  TransferRowsAndExtras,
} from '../domain/ports';
import { amongIds, type Db, heavyRead, idsParam, type RepoContext, selectPrepared, slices } from './context';
import { type DeliveryRow, deliveryOf } from './mail-queue-repo';
import type { Dialect } from './migrations';
import {
  FILE_COLUMNS,
  fileRowOf,
  RECIPIENT_COLUMNS,
  recipientRowOf,
  TRANSFER_COLUMNS,
  toFile,
  toRecipient,
  toTransfer,
  transferRowOf,
} from './rows';
import { transferPage, type TransferPageSql } from './transfers-repo';
import { type DoneCountRow, type SharingControlsRow, sharingViews } from './sharing-repo';
import { addTrackingRows, type TrackingRow } from './tracking-errors-repo';
import { addScanRows, type ScanRow } from './virus-scan-repo';

/**
 * Everything a list of Transfers is shown with (the port's comment says what), in one statement: subqueries that
 * each give their rows as one JSON array, about Transfers whose ids are bound as one parameter (an array on
 * PostgreSQL, a JSON list on SQLite) or that the statement reads itself as a page (pageWithRows). Its text does
 * not change with the list's length, so PostgreSQL keeps it prepared; one round trip where a page was four
 * statements (docs/architecture.md, "Lists and pages"). Pages and whole lists take turns on PostgreSQL (heavyRead).
 * The rows are those the repositories' own reads give (transfers-repo, sharing-repo, virus-scan-repo,
 * tracking-errors-repo, mail-queue-repo), and are turned into records by the same functions.
 */
export class TransferExtrasRepo implements TransferExtrasRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async of(transferIds: number[]): Promise<TransferExtras> {
    const { sharing, scans, errors, delivery } = await this.read(transferIds, false);
    return { sharing, scans, errors, delivery };
  }

  withRowsOf(transferIds: number[]): Promise<TransferRowsAndExtras> {
    return this.read(transferIds, true);
  }

  async pageWithRows(owner: TransferOwner, page: Page): Promise<TransferPageRead> {
    const select = transferPage(owner, page);
    const read = () =>
      selectPrepared<Record<Column, unknown>>(
        this.db,
        this.ctx,
        statementFor(this.ctx.dialect, { page: select }, true),
        [...select.params, 'Recipient', 'Recipient'],
      );
    // A page past an offset reads every row it skips (hundreds of ms deep in a million): holding one of the turns
    // that long would keep every other page waiting behind it, so it takes none.
    const [row] = await (select.skipsRows ? read() : heavyRead(this.ctx, read));
    const transfers = rowsOf(row.transfers).map((a) => toTransfer(transferRowOf(a)));
    const out = emptyRead();
    addRows(out, row);
    addExtras(
      out,
      transfers.map((t) => t.id),
      row,
    );
    return { transfers, ...out };
  }

  /**
   * The statement once per BATCH Transfers (a page is one; a whole list of thousands is several, so that no one
   * JSON value grows with a user's history), `withRows` with their files and recipients.
   */
  private async read(transferIds: number[], withRows: boolean): Promise<TransferRowsAndExtras> {
    const out = emptyRead();
    for (const ids of slices([...new Set(transferIds)], BATCH)) {
      const list = idsParam(this.ctx, ids);
      const select = () =>
        selectPrepared<Record<Column, unknown>>(
          this.db,
          this.ctx,
          statementFor(this.ctx.dialect, { ids: true }, withRows),
          withRows
            ? [list, list, list, 'Recipient', 'Recipient', list, list]
            : [list, list, list, 'Recipient', 'Recipient'],
        );
      // A list's read takes its turn with the pages; one Transfer's extras (an answer about it) are light.
      const [row] = await (withRows ? heavyRead(this.ctx, select) : select());
      if (withRows) addRows(out, row);
      addExtras(out, ids, row);
    }
    return out;
  }
}

function emptyRead(): TransferRowsAndExtras {
  return { files: [], recipients: [], sharing: new Map(), scans: new Map(), errors: new Map(), delivery: new Map() };
}

/** One statement's files and recipients into `out`. */
function addRows(out: TransferRowsAndExtras, row: Record<Column, unknown>): void {
  for (const a of rowsOf(row.files)) out.files.push(toFile(fileRowOf(a)));
  for (const a of rowsOf(row.recipients)) out.recipients.push(toRecipient(recipientRowOf(a)));
}

/** Transfers per statement: a page is at most MAX_PAGE_SIZE (domain/paging.ts), a whole list is read in parts. */
const BATCH = 1000;

type Column = 'controls' | 'counts' | 'scans' | 'errors' | 'mails' | 'files' | 'recipients' | 'transfers';

/** One statement's extras of `ids` into `out`, through the mappers of the repositories' own reads. */
function addExtras(out: TransferExtras, ids: number[], row: Record<Column, unknown>): void {
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
  for (const [id, view] of sharingViews(ids, controls, counts)) out.sharing.set(id, view);
  addScanRows(
    out.scans,
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
  addTrackingRows(
    out.errors,
    rowsOf(row.errors).map(([target_id, type, date, details]): TrackingRow => ({ target_id, type, date, details })),
  );
  // In id order: the last row seen for a recipient is its latest mail.
  for (const [id, target_id, status, attempts, last_error, created, sent, next_attempt] of rowsOf(row.mails)) {
    const r: DeliveryRow = { id, target_id, status, attempts, last_error, created, sent, next_attempt };
    out.delivery.set(Number(target_id), deliveryOf(r));
  }
}

/**
 * A subquery's rows: PostgreSQL's driver parses a json column itself, SQLite gives the text. Positional, as the
 * columns are listed in statementFor(); they are typed where they are named, above.
 */
function rowsOf(v: unknown): any[][] {
  return (typeof v === 'string' ? JSON.parse(v) : v) as unknown[][];
}

const statements = new Map<string, string>();

/** Which Transfers a statement is about: ids bound as one parameter, or a page it reads itself as a CTE. */
type Scope = { ids: true } | { page: TransferPageSql };

/** The statement's text for a database and scope, with or without the Transfers' files and recipients, made once. */
function statementFor(dialect: Dialect, scope: Scope, withRows: boolean): string {
  const key = `${dialect} ${'page' in scope ? scope.page.text : 'ids'} ${withRows}`;
  let text = statements.get(key);
  if (text) return text;
  const pg = dialect === 'postgres';
  // The ids as one bound parameter; or the page's, as an array PostgreSQL computes once, so that each read below
  // is the same index scan as for bound ids whatever plan the prepared statement settles on.
  const among =
    'page' in scope ? (pg ? '= any(array(select id from page))' : 'in (select id from page)') : amongIds(dialect);
  const rows = (columns: string, order: string) =>
    pg
      ? `coalesce(json_agg(json_build_array(${columns}) order by ${order}), '[]'::json)`
      : `json_group_array(json_array(${columns}) order by ${order})`;
  // Live rows as TransferRepository.filesOf and recipientsOf read them; ranges stays text, as toFile parses it.
  const live = (table: string, columns: readonly string[]) =>
    `(select ${rows(columns.join(', '), 'id')} from ${table} where transfer_id ${among} and deleted is null) as ${table}`;
  const page = 'page' in scope ? scope.page.text : null;
  // The Transfers' recipients once (a CTE named twice is computed once), for their claims, bounces and mails.
  text = `with ${page ? `page as (${page}),\n` : ''}rs as (select id, transfer_id from recipients where transfer_id ${among})
select${page ? `\n  (select ${rows(TRANSFER_COLUMNS.join(', '), 'id desc')} from page) as transfers,` : ''}
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
     from mail_queue m where m.target_type = ? and m.target_id in (select id from rs)) as mails${
       withRows ? `,\n  ${live('files', FILE_COLUMNS)},\n  ${live('recipients', RECIPIENT_COLUMNS)}` : ''
     }`;
  statements.set(key, text);
  return text;
}
