import { configFrom } from './config-option';
import type { FerryApp } from '../app';
import { silentLogger } from '../log';

/** Opens the app on the config's data dir for one command and closes it after (safe while serve runs: SQLite in WAL mode, or PostgreSQL). */
export async function withApp<T>(opts: { config?: string }, fn: (app: FerryApp) => T | Promise<T>): Promise<T> {
  const { config } = configFrom(opts);
  // Loaded on use, so that `ferry version` and `--help` start without the server's modules.
  const { createApp } = await import('../app');
  const app = await createApp(config, { log: silentLogger });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
