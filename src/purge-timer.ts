import path from 'node:path';
import type { Config } from './config/defaults';
import { formatReport, PurgeService } from './domain/purge';
import type { Logger } from './log';
import { tryLock } from './storage/lock';

/** The in-server purge pass every purge_interval_s (design.md §7), sharing the CLI's lock. Returns its stopper. */
export function startPurgeTimer(purge: PurgeService, config: Config, log: Logger): () => Promise<void> {
  let running: Promise<void> | null = null;
  const pass = async () => {
    const unlock = tryLock(path.join(config.data_dir, 'purge.lock'));
    if (!unlock) return;
    try {
      log.info(formatReport(await purge.run()));
    } catch (e) {
      log.error(`purge failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      unlock();
    }
  };
  const timer = setInterval(() => {
    running ??= pass().finally(() => (running = null));
  }, config.purge_interval_s * 1000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
