import type { SignatureRepository } from '../domain/ports';
import { runSql, type Db, type RepoContext } from './context';

const USE_SIGNATURE =
  'INSERT INTO used_signatures (signature, expires) VALUES (?, ?) ON CONFLICT (signature) DO UPDATE SET expires = ? WHERE used_signatures.expires < ? RETURNING signature';

/**
 * Expired signatures are swept at most this often (seconds): the sweep is a range delete under the write
 * lock, and once a minute is enough since the timestamp window, not the row, decides what is a replay.
 */
export const SIGNATURE_SWEEP_S = 60;

/** Signatures of signed POST/PUT/DELETE requests, kept until their timestamp window has passed (replay refusal). */
export class SignaturesRepo implements SignatureRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  /**
   * One statement on either database, so two nodes (or processes) receiving the same signature at once cannot
   * both accept it: the insert lands, or it replaces a row whose window has passed, or it does nothing.
   */
  async use(signature: string, expires: number, now: number): Promise<boolean> {
    const sweep = this.ctx.signatureSweep;
    if (now - sweep.last >= SIGNATURE_SWEEP_S) {
      sweep.last = now;
      await this.db.deleteFrom('used_signatures').where('expires', '<', now).execute();
    }
    // Fixed SQL text, not built per call: one runs for every signed chunk (building it cost more than running it).
    const rows = await runSql<{ signature: string }>(this.db, this.ctx, USE_SIGNATURE, [
      signature,
      expires,
      expires,
      now,
    ]);
    return rows.length > 0;
  }

  /** Forgets a signature (its request failed before it changed anything, so the client's retry may reuse it). */
  async release(signature: string): Promise<void> {
    await this.db.deleteFrom('used_signatures').where('signature', '=', signature).execute();
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom('used_signatures')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
