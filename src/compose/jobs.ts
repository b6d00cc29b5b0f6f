import type { Config } from '../config/defaults';
import type { Settings } from '../config/settings';
import { BackgroundJobs, type BackgroundJob } from '../domain/background-jobs';
import { formatReport, type PurgeReport } from '../domain/purge';
import type { Metrics } from '../http/ops/metrics';
import type { Logger } from '../log';
import type { NodeIdentity } from './node';
import type { TransferParts } from './transfers';

/** How often a running server reads the runtime overrides again (another node's PUT /config). */
const SETTINGS_RELOAD_MS = 5000;
/** How often a node looks for completed files whose SHA-256 is still to be computed (S3 store). */
const DIGEST_POLL_MS = 5_000;
/** How often a node looks for background completions to take up: a lapsed claim waits at most this long more. */
const ASSEMBLY_POLL_MS = 5_000;
/** How often a node looks for virus scans to take up (held ones are due every few minutes). */
const SCAN_POLL_MS = 30_000;

/**
 * The node's background jobs (docs/architecture.md, "Background jobs"), each registered with the one runner:
 * what they claim in the database is leased, so work a dead node left passes to another. The mail queue runs its
 * own worker (its next attempt is due at a time the queue knows).
 */
export function composeJobs(
  config: Config,
  d: { log: Logger; node: NodeIdentity; settings: Settings; metrics: Metrics; transfers: TransferParts },
): BackgroundJobs {
  const { log, node } = d;
  const { services: s, digestJobs, assemblyJobs } = d.transfers;
  const jobs = new BackgroundJobs(log, node.name);
  jobs.register({ name: 'settings reload', everyMs: SETTINGS_RELOAD_MS, run: () => d.settings.reload() });
  // Completions another node left when it died (their claims lapse), or asked of another node, are taken up here.
  if (assemblyJobs) jobs.register(claimed('background completions', ASSEMBLY_POLL_MS, assemblyJobs));
  // Files another node completed, or left half-hashed when it died (their claims lapse), are taken up here.
  if (digestJobs) jobs.register(claimed('SHA-256 of completed files', DIGEST_POLL_MS, digestJobs));
  // Scans another node left (claims lapsed), held ones due again, and those of a config turned off since.
  jobs.register(claimed('virus scans', SCAN_POLL_MS, s.virusScans));
  if (config.purge_interval_s > 0)
    jobs.register({
      name: 'purge',
      everyMs: config.purge_interval_s * 1000,
      run: () => purgePass(d, () => node.note('took the purge lock')),
    });
  return jobs;
}

/**
 * A job over work claimed in the database: a pass takes what is due (`kick`, which also runs when an upload asks),
 * at start too, since what a dead node left is due at once; `stop` waits for the piece under way.
 */
function claimed(name: string, everyMs: number, work: { kick(): Promise<void>; stop(): Promise<void> }): BackgroundJob {
  return { name, everyMs, atStart: true, run: () => work.kick(), stop: () => work.stop() };
}

/** The in-server purge pass (docs/architecture.md, Purge), under the lock the CLI's `ferry purge` takes too. */
async function purgePass(
  d: { log: Logger; node: NodeIdentity; metrics: Metrics; transfers: TransferParts },
  onLocked: () => void,
): Promise<void> {
  const { purge, usage } = d.transfers.services;
  let report: PurgeReport | null;
  try {
    report = await purge.runExclusive({}, onLocked);
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    d.metrics.purgeOutcome(err);
    d.log.error(`purge failed: ${err.message}`);
    return;
  }
  if (!report) return;
  d.metrics.purgeOutcome(report);
  d.node.note(formatReport(report));
  // The storage-over-time chart gets a sample a day even when no admin looks.
  usage.sampleStorage().catch((e: Error) => d.log.error(`storage sample: ${e.message}`));
}
