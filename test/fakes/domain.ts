import type { Actor } from '../../src/domain/model';
import type { IdGenerator, Notifier } from '../../src/domain/ports';
import { GuestsService } from '../../src/domain/guests';
import { PurgeService } from '../../src/domain/purge';
import { TransfersService } from '../../src/domain/transfers';
import { UploadsService } from '../../src/domain/uploads';
import { UsageService } from '../../src/domain/usage';
import { MemoryFileStore } from './memory-file-store';
import { MemoryWorld } from './memory-repositories';

/**
 * The domain's services built as src/app.ts builds them, on the in-memory ports: no server, no database, no
 * disk. Every rule of transfers, uploads, guests, usage and purge can be tested in milliseconds. The clock is
 * moved by hand; the notifier records each mail event as "event:recipient or guest address".
 */
export function domainOnFakes(
  opts: { userQuota?: number; hostQuota?: number; maxRecipients?: number; chunkSize?: number; auditDays?: number } = {},
) {
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
  const chunkSize = opts.chunkSize ?? 1024;
  const guests = new GuestsService({ repos, uow, notifier, clock, ids });
  const usage = new UsageService({
    repos,
    files,
    clock,
    limits: () => ({ userQuota: opts.userQuota ?? 0, hostQuota: opts.hostQuota ?? 0 }),
  });
  const transfers = new TransfersService({
    repos,
    uow,
    files,
    notifier,
    guests,
    clock,
    ids,
    usage,
    limits: () => ({
      maxDays: 20,
      maxSize: 1e12,
      maxFiles: 100,
      maxRecipients: opts.maxRecipients ?? 10,
      extensions: [7, 7],
    }),
    chunkSize: () => chunkSize,
  });
  const uploads = new UploadsService({ repos, uow, files, guests, clock, chunkLimit: () => chunkSize });
  const purge = new PurgeService({
    repos,
    uow,
    files,
    guests,
    notifier,
    lifetimeDays: () => opts.auditDays ?? 31,
    clock,
  });
  return { world, files, time, ids, mails, guests, usage, transfers, uploads, purge };
}

/** A user as the HTTP layer hands one to the services. */
export function userActor(id: string, email = `${id}@example.org`): Actor {
  return { type: 'user', id, emails: [email], ip: null, fromMustBeOwn: true, guestId: null };
}
