import type { Config } from './config/defaults';
import { formatReport, PurgeService, type PurgeReport } from './domain/purge';
import type { Locks } from './domain/ports';
import type { Logger } from './log';

/** Name of the lock two purge passes (CLI, servers, nodes) share, so they never overlap. */
export const PURGE_LOCK = 'purge';

/** The in-server purge pass every purge_interval_s (docs/architecture.md, Purge), sharing the CLI's lock. Returns its stopper. */
export function startPurgeTimer(
  purge: PurgeService,
  locks: Locks,
  config: Config,
  log: Logger,
  /** Told each pass's outcome (the metrics count passes and what they removed). */
  observe: (outcome: PurgeReport | Error) => void = () => {},
  /** The node's name for the log (src/app.ts). */
  node = 'this process',
): () => Promise<void> {
  let running: Promise<void> | null = null;
  const pass = async () => {
    const unlock = await locks.tryLock(PURGE_LOCK);
    if (!unlock) return;
    // A node killed mid-pass loses the lock with its connection (PostgreSQL) or its lease (SQLite); the next pass,
    // on any node, does what it left: every step of a pass can be run again.
    log.info(`node ${node}: took the purge lock`);
    try {
      const report = await purge.run();
      observe(report);
      log.info(`node ${node}: ${formatReport(report)}`);
    } catch (e) {
      observe(e instanceof Error ? e : new Error(String(e)));
      log.error(`purge failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await unlock().catch(() => {});
    }
  };
  const timer = setInterval(() => {
    running ??= pass()
      .catch((e: Error) => log.error(`purge lock: ${e.message}`))
      .finally(() => (running = null));
  }, config.purge_interval_s * 1000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
