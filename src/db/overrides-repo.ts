import type { Db } from './connection';

/** Persists PUT /config overrides as JSON values, one row per key. */
export class OverridesRepo {
  constructor(private readonly db: Db) {}

  load(): Record<string, unknown> {
    const rows = this.db.prepare('SELECT key, value FROM config_overrides').all() as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
  }

  save(values: Record<string, unknown>): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM config_overrides').run();
      const ins = this.db.prepare('INSERT INTO config_overrides (key, value) VALUES (?, ?)');
      for (const [k, v] of Object.entries(values)) ins.run(k, JSON.stringify(v));
    })();
  }
}
