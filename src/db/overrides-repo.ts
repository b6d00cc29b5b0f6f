import type { OverrideRepository } from '../domain/ports';
import { atomically, Db } from './context';

/** Persists PUT /config overrides as JSON values, one row per key. */
export class OverridesRepo implements OverrideRepository {
  constructor(private readonly db: Db) {}

  async load(): Promise<Record<string, unknown>> {
    const rows = await this.db.selectFrom('config_overrides').select(['key', 'value']).execute();
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
  }

  async save(values: Record<string, unknown>): Promise<void> {
    await atomically(this.db, async (db) => {
      await db.deleteFrom('config_overrides').execute();
      const rows = Object.entries(values).map(([key, v]) => ({ key, value: JSON.stringify(v) }));
      if (rows.length) await db.insertInto('config_overrides').values(rows).execute();
    });
  }
}
