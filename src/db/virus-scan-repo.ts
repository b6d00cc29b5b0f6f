import type { ScanState, VirusScanRecord, VirusScanRepository } from '../domain/ports';
import { affected, firstRow, type Db, type RepoContext } from './context';

/** Completed transfers' virus scans and what they found (docs/sharing.md, Virus scanning). */
export class VirusScanRepo implements VirusScanRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async begin(transferId: number, now: number): Promise<void> {
    await this.db
      .insertInto('virus_scans')
      .values({
        transfer_id: transferId,
        state: 'checking',
        started: now,
        finished: null,
        claim_until: null,
        retry_at: now,
        error: null,
      })
      .onConflict((oc) => oc.column('transfer_id').doNothing())
      .execute();
  }

  async find(transferId: number): Promise<VirusScanRecord | undefined> {
    return (await this.findMany([transferId])).get(transferId);
  }

  async findMany(transferIds: number[]): Promise<Map<number, VirusScanRecord>> {
    const out = new Map<number, VirusScanRecord>();
    // One statement per 500 transfers: each scan with its findings (none for most), in slices within the databases'
    // limits on bound parameters.
    const ids = [...new Set(transferIds)];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.db
        .selectFrom('virus_scans as s')
        .leftJoin('virus_findings as f', 'f.transfer_id', 's.transfer_id')
        .select(['s.transfer_id', 's.state', 's.started', 's.finished', 's.error', 'f.file_id', 'f.signature'])
        .where('s.transfer_id', 'in', ids.slice(i, i + 500))
        .orderBy('s.transfer_id')
        .orderBy('f.file_id')
        .execute();
      addScanRows(out, rows);
    }
    return out;
  }

  async claim(now: number, until: number, dueBy: number): Promise<{ transferId: number; lapsed: boolean } | undefined> {
    // Several nodes may pick the same candidate: the conditional update lets one of them have it.
    for (let attempt = 0; attempt < 5; attempt++) {
      const candidate = await firstRow(
        this.db,
        this.ctx,
        this.db
          .selectFrom('virus_scans')
          .select(['transfer_id', 'claim_until'])
          .where('state', 'in', ['checking', 'held'])
          .where('retry_at', '<=', dueBy)
          .where((eb) => eb.or([eb('claim_until', 'is', null), eb('claim_until', '<', now)]))
          .orderBy('retry_at')
          .limit(1),
      );
      if (!candidate) return undefined;
      const r = await this.db
        .updateTable('virus_scans')
        .set({ claim_until: until })
        .where('transfer_id', '=', candidate.transfer_id)
        .where('state', 'in', ['checking', 'held'])
        .where((eb) => eb.or([eb('claim_until', 'is', null), eb('claim_until', '<', now)]))
        .execute();
      if (affected(r) > 0) return { transferId: Number(candidate.transfer_id), lapsed: candidate.claim_until !== null };
    }
    return undefined;
  }

  async renew(transferId: number, until: number): Promise<void> {
    await this.db
      .updateTable('virus_scans')
      .set({ claim_until: until })
      .where('transfer_id', '=', transferId)
      .where('state', 'in', ['checking', 'held'])
      .where('claim_until', 'is not', null)
      .execute();
  }

  async nextLapse(now: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('virus_scans')
      .select((eb) => eb.fn.min('claim_until').as('lapse'))
      .where('state', 'in', ['checking', 'held'])
      .where('claim_until', '>=', now)
      .executeTakeFirst();
    return row?.lapse == null ? undefined : Number(row.lapse);
  }

  async finish(
    transferId: number,
    state: 'clean' | 'infected' | 'not_scanned',
    now: number,
    error: string | null,
    findings: { fileId: number; signature: string }[],
  ): Promise<void> {
    await this.db
      .updateTable('virus_scans')
      .set({ state, finished: now, claim_until: null, error })
      .where('transfer_id', '=', transferId)
      .execute();
    for (const f of findings) {
      await this.db
        .insertInto('virus_findings')
        .values({ file_id: f.fileId, transfer_id: transferId, signature: f.signature })
        .onConflict((oc) => oc.column('file_id').doUpdateSet({ signature: f.signature }))
        .execute();
    }
  }

  async hold(transferId: number, retryAt: number, error: string): Promise<void> {
    await this.db
      .updateTable('virus_scans')
      .set({ state: 'held', retry_at: retryAt, claim_until: null, error })
      .where('transfer_id', '=', transferId)
      .execute();
  }

  async held(): Promise<number[]> {
    const rows = await this.db
      .selectFrom('virus_scans as s')
      .innerJoin('transfers as t', 't.id', 's.transfer_id')
      .select('s.transfer_id')
      .where('s.state', '=', 'held')
      .where('t.status', '<>', 'closed')
      .orderBy('s.transfer_id')
      .execute();
    return rows.map((r) => Number(r.transfer_id));
  }
}

/** A scan joined with one of its findings (file_id and signature null when it has none). */
export interface ScanRow {
  transfer_id: number;
  state: string;
  started: number;
  finished: number | null;
  error: string | null;
  file_id: number | null;
  signature: string | null;
}

/** Adds scans from their rows (each scan once per finding, in file order) to `out`, by Transfer id. */
export function addScanRows(out: Map<number, VirusScanRecord>, rows: ScanRow[]): void {
  for (const row of rows) {
    const transferId = Number(row.transfer_id);
    let scan = out.get(transferId);
    if (!scan) {
      scan = {
        transferId,
        state: row.state as ScanState,
        started: Number(row.started),
        finished: row.finished === null ? null : Number(row.finished),
        error: row.error,
        findings: [],
      };
      out.set(transferId, scan);
    }
    if (row.file_id !== null && row.signature !== null)
      scan.findings.push({ fileId: Number(row.file_id), signature: row.signature });
  }
}
