import { composeAccounts } from '../../src/compose/identity';
import { composeTransfers } from '../../src/compose/transfers';
import { defaultConfig, type Config } from '../../src/config/defaults';
import type { Actor } from '../../src/domain/model';
import type { IdGenerator, Notifier, PasswordHasher, ScanVerdict } from '../../src/domain/ports';
import { MemoryFileStore } from './memory-file-store';
import { MemoryWorld } from './memory-repositories';

/** What the fakes' scanner answers for a file's bytes: a verdict, or a failure (clamd unreachable). */
export type FakeScan = (bytes: Buffer) => ScanVerdict | Error;

/**
 * The domain's services built by the same capability modules as the server's (src/compose/), on the in-memory
 * ports: no server, no database, no disk. The config is ferry's defaults (src/config/defaults.ts) with `config` over them, read through the same
 * mapping the server uses (src/config/service-limits.ts), so every rule is tested in milliseconds as the server
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

  const accounts = composeAccounts(config, cfg, { repos, uow, clock, ids, passwords });
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
  const policy = scanner && {
    scanner,
    onInfected: opts.antivirus?.onInfected ?? 'block',
    onError: opts.antivirus?.onError ?? 'hold',
    maxBytes: 1e9,
  };
  // The same wiring as the server's (src/compose/transfers.ts), on the in-memory ports.
  const built = composeTransfers(
    { repos, uow, locks: world.locks, files, notifier, clock, ids },
    { settings: cfg, scanPolicy: () => policy ?? null, log },
  );
  return {
    world,
    files,
    time,
    ids,
    mails,
    logged,
    config,
    users: accounts.users,
    accounts: accounts.accounts,
    reminders: built.reminders,
    ...built.services,
  };
}

export type DomainOnFakes = ReturnType<typeof domainOnFakes>;

/** A user as the HTTP layer hands one to the services. */
export function userActor(id: string, email = `${id}@example.org`): Actor {
  return { type: 'user', id, emails: [email], ip: null, fromMustBeOwn: true, guestId: null };
}
