import { defaultConfig, type Config } from '../../src/config/defaults';
import { guestLimitsOf, quotaLimitsOf, reminderMarksOf, transferLimitsOf } from '../../src/config/service-limits';
import { AccountsService } from '../../src/domain/accounts';
import { AutomaticReminders } from '../../src/domain/automatic-reminders';
import { DownloadsService } from '../../src/domain/downloads';
import { GuestsService } from '../../src/domain/guests';
import type { Actor } from '../../src/domain/model';
import type { IdGenerator, Notifier, PasswordHasher, ScanVerdict } from '../../src/domain/ports';
import { PurgeService } from '../../src/domain/purge';
import { RecipientsService } from '../../src/domain/recipients';
import { SharingService } from '../../src/domain/sharing';
import { TransfersService } from '../../src/domain/transfers';
import { UploadsService } from '../../src/domain/uploads';
import { UsageService } from '../../src/domain/usage';
import { UsersService } from '../../src/domain/users';
import { VirusScans } from '../../src/domain/virus-scans';
import { MemoryFileStore } from './memory-file-store';
import { MemoryWorld } from './memory-repositories';

/** What the fakes' scanner answers for a file's bytes: a verdict, or a failure (clamd unreachable). */
export type FakeScan = (bytes: Buffer) => ScanVerdict | Error;

/**
 * The domain's services built as src/app.ts builds them, on the in-memory ports: no server, no database, no
 * disk. The config is ferry's defaults (src/config/defaults.ts) with `config` over them, read through the same
 * mapping app.ts uses (src/config/service-limits.ts), so every rule is tested in milliseconds as the server
 * configures it. Chunks are 1 KiB unless `config` says otherwise. The clock is moved by hand; the notifier
 * records each mail event as "event:recipient or guest address"; `scan` is the virus scanner (none: scanning off).
 */
export function domainOnFakes(
  opts: {
    userQuota?: number;
    hostQuota?: number;
    maxRecipients?: number;
    chunkSize?: number;
    auditDays?: number;
    config?: Partial<Config>;
    scan?: FakeScan;
    antivirus?: { onInfected?: 'block' | 'flag'; onError?: 'hold' | 'allow' };
  } = {},
) {
  const config: Config = {
    ...defaultConfig(),
    upload_chunk_size: opts.chunkSize ?? 1024,
    max_transfer_recipients: opts.maxRecipients ?? 10,
    user_quota: opts.userQuota ?? 0,
    host_quota: opts.hostQuota ?? 0,
    auditlog_lifetime_days: opts.auditDays ?? 31,
    ...opts.config,
  };
  const cfg = () => config;
  const world = new MemoryWorld();
  const files = new MemoryFileStore();
  const time = { now: 1_900_000_000 };
  const clock = () => time.now;
  let n = 0;
  const hex = (bytes: number) => (++n).toString(16).padStart(bytes * 2, '0');
  const ids: IdGenerator = {
    token: () => hex(16),
    guestToken: () => hex(20),
    secret: () => hex(32),
    password: () => hex(18),
    sessionTokens: () => ({ token: hex(32), csrfToken: hex(24) }),
  };
  // Hashes that are the password marked: enough for the rules, which never look inside them.
  const passwords: PasswordHasher = { hash: async (p) => `h:${p}`, verify: async (p, h) => h === `h:${p}` };
  const mails: string[] = [];
  const note =
    (event: string) =>
    async (
      _tx: unknown,
      subject: { email?: string; userEmail?: string },
      _f?: unknown,
      recipients?: { email: string }[],
    ) => {
      if (Array.isArray(recipients)) for (const r of recipients) mails.push(`${event}:${r.email}`);
      else mails.push(`${event}:${subject.email ?? subject.userEmail}`);
    };
  const notifier = new Proxy({} as Notifier, {
    get: (_, event) => (event === 'resendUndelivered' ? async () => false : note(String(event))),
  });
  const { repos, uow } = world;
  const logged: string[] = [];
  const log = { info: (m: string) => logged.push(m), error: (m: string) => logged.push(`error: ${m}`) };

  const users = new UsersService({ store: repos.users, configAdmins: () => cfg().admin, clock, ids });
  const accounts = new AccountsService({ repos, uow, users, clock, ids, passwords });
  const guests = new GuestsService({ repos, uow, notifier, clock, ids });
  const usage = new UsageService({ repos, files, clock, limits: () => quotaLimitsOf(cfg()) });
  let virusScans: VirusScans | null = null;
  const transfers = new TransfersService({
    repos,
    uow,
    files,
    notifier,
    guests,
    clock,
    ids,
    usage,
    limits: () => transferLimitsOf(cfg()),
    chunkSize: () => cfg().upload_chunk_size,
    scanning: () => virusScans,
  });
  const scan = opts.scan;
  const scanner = scan && {
    async scan(blocks: AsyncIterable<Uint8Array>): Promise<ScanVerdict> {
      const parts: Uint8Array[] = [];
      for await (const b of blocks) parts.push(b);
      const out = scan(Buffer.concat(parts));
      if (out instanceof Error) throw out;
      return out;
    },
  };
  virusScans = new VirusScans({
    repos,
    uow,
    files,
    notifier,
    transfers,
    clock,
    policy: () =>
      scanner
        ? {
            scanner,
            onInfected: opts.antivirus?.onInfected ?? 'block',
            onError: opts.antivirus?.onError ?? 'hold',
            maxBytes: 1e9,
          }
        : null,
    configAdmins: () => cfg().admin,
    log,
  });
  const uploads = new UploadsService({ repos, uow, files, guests, clock, chunkLimit: () => cfg().upload_chunk_size });
  const recipients = new RecipientsService({
    repos,
    uow,
    files,
    transfers,
    notifier,
    guests,
    clock,
    ids,
    maxRecipients: () => cfg().max_transfer_recipients,
  });
  const downloads = new DownloadsService({ repos, uow, notifier, clock });
  const sharing = new SharingService({ repos, uow, clock });
  const reminders = new AutomaticReminders({ repos, uow, notifier, clock, marks: () => reminderMarksOf(cfg()) });
  const purge = new PurgeService({
    repos,
    uow,
    files,
    guests,
    notifier,
    lifetimeDays: () => cfg().auditlog_lifetime_days,
    clock,
    reminders,
  });
  return {
    world,
    files,
    time,
    ids,
    mails,
    logged,
    config,
    guestLimits: () => guestLimitsOf(cfg()),
    users,
    accounts,
    guests,
    usage,
    transfers,
    virusScans,
    uploads,
    recipients,
    downloads,
    sharing,
    reminders,
    purge,
  };
}

export type DomainOnFakes = ReturnType<typeof domainOnFakes>;

/** A user as the HTTP layer hands one to the services. */
export function userActor(id: string, email = `${id}@example.org`): Actor {
  return { type: 'user', id, emails: [email], ip: null, fromMustBeOwn: true, guestId: null };
}
