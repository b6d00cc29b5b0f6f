import type { AuditEntry, FileRecord, Transfer } from './model';
import type { Clock, FileStore, Notifier, Repositories, UnitOfWork, VirusScanRecord, VirusScanner } from './ports';
import { fileTarget, transferTarget } from './audit-events';
import type { TransfersService } from './transfers';
import { JobRunner } from './job-runner';

const MiB = 1024 * 1024;
/**
 * A claim on a transfer's scan lasts this long and is renewed every RENEW_MS while its node scans, like the
 * SHA-256 claims of ./digests.ts; a node that died with it leaves it to another after that. The other nodes
 * wake when the earliest claim they saw lapses, so the scan is taken over within CLAIM_S + LAPSE_GRACE_MS of the
 * last renewal (docs/deploying.md, "When a node dies").
 */
export const CLAIM_S = 30;
const RENEW_MS = 10_000;
/** A look for lapsed claims waits this much past the lapse (the database's clock counts whole seconds). */
const LAPSE_GRACE_MS = 1_000;
/** A held scan (clamd down or late, on_error "hold") is tried again after this long. */
export const HOLD_RETRY_S = 300;

/** The antivirus settings as the domain uses them (config `antivirus`, docs/sharing.md, Virus scanning). */
export interface ScanPolicy {
  scanner: VirusScanner;
  onInfected: 'block' | 'flag';
  onError: 'hold' | 'allow';
  maxBytes: number;
}

export interface Finding {
  file: FileRecord;
  signature: string;
}

export interface VirusScanDeps {
  repos: Repositories;
  uow: UnitOfWork;
  files: FileStore;
  notifier: Notifier;
  transfers: TransfersService;
  clock: Clock;
  /** null: scanning is off (nothing waits; scans still pending go on unscanned). */
  policy: () => ScanPolicy | null;
  /** The admins' user ids from the config (the database's admins are added). */
  configAdmins: () => string[];
  log: { info(m: string): void; error(m: string): void };
  /** The node's name in the log lines of what it claims (src/app.ts). */
  node?: string;
}

/** The scan's author in the audit log: ferry itself, like the automatic reminders. */
const FERRY: AuditEntry['author'] = { type: 'User', id: 'ferry', ip: null };

/** A scan's outcome from what each file gave (pure: the rules of docs/sharing.md, Virus scanning). */
export function scanOutcome(
  findings: Finding[],
  failure: string | null,
  policy: Pick<ScanPolicy, 'onInfected' | 'onError'>,
): 'release' | 'block' | 'flag' | 'hold' | 'allow' {
  if (findings.length) return policy.onInfected === 'block' ? 'block' : 'flag';
  if (failure !== null) return policy.onError === 'hold' ? 'hold' : 'allow';
  return 'release';
}

/**
 * Virus scanning of completed transfers (docs/sharing.md, Virus scanning). Completion records a scan in its
 * unit of work instead of making the transfer available; a job on any node claims it in the database (a lease,
 * like the SHA-256 jobs of ./digests.ts), streams every file from the store to the scanner, and settles it in
 * one unit of work: clean → the rest of the completion (available, recipients mailed); infected → blocked or
 * flagged, the owner and the admins mailed, the signature in the audit log; scanner down → held (tried again
 * every HOLD_RETRY_S) or, with on_error "allow", on unscanned. Encrypted transfers are never scanned.
 */
export class VirusScans {
  private readonly runner: JobRunner;
  /** Wakes this node when a claim seen running on another node lapses, to take its scan over. */
  private lapseTimer: NodeJS.Timeout | null = null;

  constructor(private readonly d: VirusScanDeps) {
    this.runner = new JobRunner(
      () => this.drain(),
      (e) => this.d.log.error(`virus scan: ${e.message}`),
    );
  }

  /** Whether antivirus is configured. */
  enabled(): boolean {
    return this.d.policy() !== null;
  }

  /** Whether completing this transfer waits for a scan: encrypted ones cannot be read, so are never scanned. */
  wanted(t: Transfer): boolean {
    return this.enabled() && t.encryption === null;
  }

  find(transferId: number): Promise<VirusScanRecord | undefined> {
    return this.d.repos.virusScans.find(transferId);
  }

  /** Works through the due scans now (a second call while running makes it look again when done). */
  kick(): Promise<void> {
    return this.runner.kick();
  }

  /** Takes no more scans and waits for the one running (its claim lapses if the process dies instead). */
  stop(): Promise<void> {
    this.wakeAt(null);
    return this.runner.stop();
  }

  private async drain(): Promise<void> {
    while (!this.runner.stopped) {
      const now = this.d.clock();
      // With scanning turned off, held scans need not wait for their next try: they are released now.
      const dueBy = this.d.policy() === null ? Number.MAX_SAFE_INTEGER : now;
      const claimed = await this.d.repos.virusScans.claim(now, now + CLAIM_S, dueBy);
      if (claimed === undefined) {
        const lapse = await this.d.repos.virusScans.nextLapse(now);
        this.wakeAt(lapse === undefined ? null : (lapse - now) * 1000 + LAPSE_GRACE_MS);
        return;
      }
      const id = claimed.transferId;
      this.note(`${claimed.lapsed ? 'took over (its claim lapsed)' : 'claimed'} the virus scan of transfer ${id}`);
      const renew = setInterval(() => {
        this.d.repos.virusScans
          .renew(id, this.d.clock() + CLAIM_S)
          .catch((e: Error) => this.d.log.error(`virus scan: transfer ${id}: renewing its claim: ${e.message}`));
      }, RENEW_MS);
      renew.unref();
      try {
        await this.scanTransfer(id);
      } finally {
        clearInterval(renew);
      }
    }
  }

  /** Looks again after `ms` (null: no claim to wait for); the latest look replaces any earlier one. */
  private wakeAt(ms: number | null): void {
    if (this.lapseTimer) clearTimeout(this.lapseTimer);
    this.lapseTimer = null;
    if (ms === null || this.runner.stopped) return;
    this.lapseTimer = setTimeout(() => void this.kick(), Math.max(0, ms));
    this.lapseTimer.unref();
  }

  private note(what: string): void {
    this.d.log.info(`node ${this.d.node ?? 'this process'}: ${what}`);
  }

  private async scanTransfer(id: number): Promise<void> {
    const t = await this.d.repos.transfers.find(id);
    if (!t) return;
    const policy = this.d.policy();
    const findings: Finding[] = [];
    const skipped: FileRecord[] = [];
    let failure: string | null = policy === null ? 'scanning was turned off' : null;
    if (policy && t.status !== 'closed') {
      for (const f of await this.d.repos.transfers.files(id)) {
        if (f.size > policy.maxBytes) {
          skipped.push(f);
          continue;
        }
        try {
          const v = await policy.scanner.scan(this.blocks(t, f));
          if (!v.clean) findings.push({ file: f, signature: v.signature });
        } catch (e) {
          failure = (e as Error).message;
          break;
        }
      }
    }
    await this.settle(t, findings, skipped, failure, policy);
  }

  /** The file's bytes from the store, 1 MiB at a time into one buffer (the scanner has sent a block before it asks for the next). */
  private async *blocks(t: Transfer, f: FileRecord): AsyncGenerator<Uint8Array> {
    if (f.size === 0) return;
    const reader = await this.d.files.openRead(t.id, f.uid, 0, f.size - 1);
    const buf = Buffer.allocUnsafe(MiB);
    try {
      for (let pos = 0; pos < f.size; ) {
        const n = await reader.read(buf, Math.min(MiB, f.size - pos), pos);
        if (n === 0) throw new Error(`stored file ${t.id}/${f.uid} is shorter than its ${f.size} bytes`);
        yield buf.subarray(0, n);
        pos += n;
      }
    } finally {
      await reader.close();
    }
  }

  private async settle(
    t: Transfer,
    findings: Finding[],
    skipped: FileRecord[],
    failure: string | null,
    policy: ScanPolicy | null,
  ): Promise<void> {
    const now = this.d.clock();
    const outcome = scanOutcome(findings, failure, policy ?? { onInfected: 'block', onError: 'allow' });
    const { uow, notifier, transfers } = this.d;
    const settled = await uow.run(async (tx) => {
      const cur = await tx.transfers.lock(t.id);
      const scan = await tx.virusScans.find(t.id);
      // Settled meanwhile (another node whose claim had lapsed), or the transfer was closed or deleted.
      if (!cur || !scan || (scan.state !== 'checking' && scan.state !== 'held')) return false;
      if (cur.status === 'closed') {
        await tx.virusScans.finish(t.id, 'not_scanned', now, 'closed before the scan ended', []);
        return false;
      }
      const audit = (event: string, target: AuditEntry['target'], detail?: string) =>
        tx.audit.record({ transferId: t.id, date: now, event, author: FERRY, target, ...(detail ? { detail } : {}) });
      // Said once, when the scan ends (not again on each try of a held one).
      if (outcome !== 'hold')
        for (const f of skipped)
          await audit('virus_scan_skipped', fileTarget(f), `larger than max_bytes (${policy?.maxBytes ?? 0})`);
      switch (outcome) {
        case 'release':
          // A file too large for the scanner leaves the transfer "not scanned", never "clean".
          if (skipped.length)
            await tx.virusScans.finish(
              t.id,
              'not_scanned',
              now,
              `${skipped.length} file(s) larger than max_bytes (${policy?.maxBytes ?? 0})`,
              [],
            );
          else {
            await tx.virusScans.finish(t.id, 'clean', now, null, []);
            await audit('virus_scan_clean', transferTarget(cur));
          }
          await transfers.releaseIn(tx, cur, FERRY, now);
          break;
        case 'block':
        case 'flag': {
          await tx.virusScans.finish(
            t.id,
            'infected',
            now,
            null,
            findings.map((x) => ({ fileId: x.file.id, signature: x.signature })),
          );
          for (const x of findings) await audit('virus_found', fileTarget(x.file), x.signature);
          await notifier.virusFound(tx, cur, findings, outcome === 'block', await this.adminEmails(tx));
          if (outcome === 'flag') await transfers.releaseIn(tx, cur, FERRY, now);
          break;
        }
        case 'hold':
          if (scan.state !== 'held') await audit('virus_scan_held', transferTarget(cur), failure ?? undefined);
          await tx.virusScans.hold(t.id, now + HOLD_RETRY_S, failure ?? 'unknown');
          break;
        case 'allow':
          await tx.virusScans.finish(t.id, 'not_scanned', now, failure, []);
          await audit('virus_scan_failed', transferTarget(cur), failure ?? undefined);
          await transfers.releaseIn(tx, cur, FERRY, now);
          break;
      }
      return true;
    });
    this.note(
      settled
        ? `finished the virus scan of transfer ${t.id}: ${outcome}`
        : `left the virus scan of transfer ${t.id}: settled by another node, or the transfer closed`,
    );
    if (!settled) return;
    const names = findings.map((x) => `${x.file.id} (${x.signature})`).join(', ');
    if (skipped.length)
      this.d.log.info(
        `virus scan: transfer ${t.id}: ${skipped.length} file(s) larger than antivirus.max_bytes not scanned`,
      );
    if (outcome === 'block') this.d.log.error(`virus scan: transfer ${t.id} blocked: infected file(s) ${names}`);
    if (outcome === 'flag')
      this.d.log.error(`virus scan: transfer ${t.id} flagged and made available: infected file(s) ${names}`);
    if (outcome === 'hold')
      this.d.log.error(`virus scan: transfer ${t.id} held, tried again in ${HOLD_RETRY_S} s: ${failure}`);
    if (outcome === 'allow')
      this.d.log.info(
        `virus scan: transfer ${t.id} made available without a scan (antivirus.on_error "allow"): ${failure}`,
      );
  }

  private async adminEmails(tx: Repositories): Promise<string[]> {
    const ids = new Set([...this.d.configAdmins(), ...(await tx.users.listAdmins())]);
    const out = new Set<string>();
    for (const id of ids) for (const e of (await tx.users.emails(id)).slice(0, 1)) out.add(e);
    return [...out];
  }
}
