import { suite, type Test } from 'uvu';
import { openDatabase } from '../../src/db/database';
import type { Locks, Repositories, Tx, UnitOfWork } from '../../src/domain/ports';
import type { Guest } from '../../src/domain/model';
import { MemoryWorld } from '../fakes/memory-repositories';
import { freshPostgresDatabase } from './system/postgres';
import { tempDir } from './temp-dir';

/** The domain's ports as a repository contract test sees them: on the in-memory fakes, SQLite or PostgreSQL. */
export interface RepositoryWorld {
  repos: Repositories;
  uow: UnitOfWork;
  locks: Locks;
  close(): Promise<void>;
}

/**
 * The three worlds a repository contract runs its cases on: the in-memory fakes of test/fakes/ (what the domain's
 * unit tests use), SQLite in a temp dir, and a fresh database on the PostgreSQL server the tests start.
 */
export const repositoryWorlds: Record<'memory' | 'sqlite' | 'postgres', () => Promise<RepositoryWorld>> = {
  memory: async () => {
    const w = new MemoryWorld();
    return { repos: w.repos, uow: w.uow, locks: w.locks, close: async () => {} };
  },
  sqlite: () => openDatabase({ dataDir: tempDir('ferry-contract-'), url: null }),
  postgres: async () =>
    openDatabase({ dataDir: tempDir('ferry-contract-'), url: await freshPostgresDatabase('ferry_contract') }),
};

/** The worlds to run: all three, or the one FERRY_TEST_DB names (sqlite, postgres; memory runs with either). */
export function worldsToRun(): [string, () => Promise<RepositoryWorld>][] {
  const only = process.env.FERRY_TEST_DB;
  return Object.entries(repositoryWorlds).filter(([name]) => !only || name === 'memory' || name === only);
}

/**
 * One suite of a repository contract per world (all three, or those FERRY_TEST_DB leaves): `cases` adds the same
 * cases to each; the world is opened before them and closed after them.
 */
export function forEachWorld(title: string, cases: (it: Test<{ w: RepositoryWorld }>) => void): void {
  for (const [name, open] of worldsToRun()) {
    const it = suite<{ w: RepositoryWorld }>(`${title} on ${name}`);
    it.before(async (ctx) => {
      ctx.w = await open();
    });
    it.after(async (ctx) => {
      await ctx.w.close();
    });
    cases(it);
    it.run();
  }
}

const T0 = 1_900_000_000;

/** A Transfer of `user` with `files` files of 100 bytes and `recipients` recipients, created at `created`. */
export function newTransferIn(
  w: Pick<RepositoryWorld, 'repos'>,
  user = 'alice',
  { files = 1, recipients = 1, created = T0, guestId = null as number | null } = {},
): Promise<number> {
  const unique = (prefix: string) => `${prefix}${Math.random().toString(16).slice(2)}`.padEnd(32, '0').slice(0, 32);
  return w.repos.transfers.create(
    {
      userId: user,
      userEmail: `${user}@x.org`,
      guestId,
      subject: 'S',
      message: null,
      options: ['get_a_link'],
      lang: null,
      created,
      expires: created + 86400,
      roundtripToken: unique('rt'),
    },
    Array.from({ length: files }, (_, i) => ({
      uid: unique(`f${i}`),
      name: `f${i}`,
      size: 100 + i,
      mimeType: null,
      cid: `c${i}`,
    })),
    Array.from({ length: recipients }, (_, i) => ({ email: `r${i}@${user}.org`, token: unique('tok'), lang: 'de' })),
  );
}

/**
 * The records that hang off Transfer `id` besides its files and recipients, as purge must remove them: an audit
 * event, and a bounce on its first recipient. Answers that recipient.
 */
export async function withAuditAndBounce(w: Pick<RepositoryWorld, 'repos'>, id: number, user: string) {
  const [r] = await w.repos.transfers.recipients(id);
  await w.repos.audit.record({
    transferId: id,
    date: T0,
    event: 'transfer_started',
    author: { type: 'User', id: user, ip: null },
    target: { type: 'Transfer', id: String(id) },
  });
  await w.repos.trackingErrors.add('Recipient', r.id, { type: 'bounce', date: T0, details: 'x' });
  return r;
}

/** A guest of `user` invited at T0, no subject, message or option, never expiring; `over` replaces. */
export function newGuestIn(
  w: Pick<RepositoryWorld, 'repos'>,
  user: string,
  over: { email?: string; token?: string; expires?: number | null } = {},
): Promise<Guest> {
  return w.repos.guests.insert({
    userId: user,
    userEmail: `${user}@x.org`,
    email: 'g@x.org',
    token: `g${Math.random().toString(16).slice(2)}`.padEnd(32, '0').slice(0, 32),
    subject: null,
    message: null,
    options: [],
    transferOptions: [],
    lang: null,
    created: T0,
    expires: null,
    ...over,
  });
}

/** Runs `work` in a unit of work that then throws 'boom': the message the unit failed with, for a rollback test. */
export function failedUnitOfWork(
  w: Pick<RepositoryWorld, 'uow'>,
  work: (tx: Tx) => Promise<void>,
): Promise<string | null> {
  return w.uow
    .run(async (tx) => {
      await work(tx);
      throw new Error('boom');
    })
    .then(
      () => null,
      (e: Error) => e.message,
    );
}
