import type { NodeRecord, NodeRegistry } from '../domain/ports';
import type { Db, RepoContext } from './context';

/**
 * The running nodes and the feature level they reached (src/domain/features.ts). `join` and `raiseLevel` each
 * run in one transaction that first locks the one `feature_level` row (PostgreSQL: FOR UPDATE; SQLite: the
 * write lock its transactions take up front), so they are applied one after the other.
 */
export class NodesRepo implements NodeRegistry {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async join(node: Omit<NodeRecord, 'seen'>, now: number): Promise<number | null> {
    return this.db.transaction().execute(async (trx) => {
      const level = await this.lockLevel(trx);
      if (level > node.featureLevel) return level;
      const row = {
        name: node.name,
        release: node.release,
        feature_level: node.featureLevel,
        started: node.started,
        seen: now,
      };
      await trx
        .insertInto('nodes')
        .values(row)
        .onConflict((oc) => oc.column('name').doUpdateSet(row))
        .execute();
      return null;
    });
  }

  async beat(name: string, now: number): Promise<void> {
    await this.db.updateTable('nodes').set({ seen: now }).where('name', '=', name).execute();
  }

  async leave(name: string): Promise<void> {
    await this.db.deleteFrom('nodes').where('name', '=', name).execute();
  }

  async running(since: number): Promise<NodeRecord[]> {
    const rows = await this.db.selectFrom('nodes').selectAll().where('seen', '>=', since).orderBy('name').execute();
    return rows.map((r) => ({
      name: r.name,
      release: r.release,
      featureLevel: Number(r.feature_level),
      started: Number(r.started),
      seen: Number(r.seen),
    }));
  }

  async raiseLevel(since: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const level = await this.lockLevel(trx);
      const low = await trx
        .selectFrom('nodes')
        .select((eb) => eb.fn.min('feature_level').as('low'))
        .where('seen', '>=', since)
        .executeTakeFirst();
      const lowest = low?.low === null || low?.low === undefined ? null : Number(low.low);
      if (lowest === null || lowest <= level) return level;
      await trx.updateTable('feature_level').set({ level: lowest }).where('id', '=', 1).execute();
      // Rows of nodes gone for good are of no more use once the level passed them.
      await trx.deleteFrom('nodes').where('seen', '<', since).execute();
      return lowest;
    });
  }

  async levelReached(): Promise<number> {
    const r = await this.db.selectFrom('feature_level').select('level').where('id', '=', 1).executeTakeFirst();
    return Number(r?.level ?? 0);
  }

  private async lockLevel(trx: Db): Promise<number> {
    // The row is made by the first node that needs it, not by the migration, so that `ferry db copy` (which
    // migrates its target, then copies every table) finds it only once.
    await trx
      .insertInto('feature_level')
      .values({ id: 1, level: 0 })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    let q = trx.selectFrom('feature_level').select('level').where('id', '=', 1);
    if (this.ctx.dialect === 'postgres') q = q.forUpdate();
    const r = await q.executeTakeFirst();
    return Number(r?.level ?? 0);
  }
}
