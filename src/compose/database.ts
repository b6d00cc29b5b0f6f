import type { Config } from '../config/defaults';
import { Settings } from '../config/settings';
import { openDatabase, type Database } from '../db/database';

/** The metadata database and the settings (the config file under the runtime overrides kept in it). */
export async function composeDatabase(config: Config): Promise<{ db: Database; settings: Settings }> {
  let settings: Settings | null = null;
  const db = await openDatabase({
    dataDir: config.data_dir,
    url: config.database_url,
    // The audit switch may be turned by PUT /config: read through the settings once they exist.
    auditEnabled: () => settings?.get().auditlog_enabled ?? config.auditlog_enabled,
  });
  settings = new Settings(config, db.repos.overrides);
  await settings.reload();
  return { db, settings };
}
