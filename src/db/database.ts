import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { Kysely } from 'kysely';
import type pg from 'pg';
import type { Locks, NodeRegistry, Repositories, Tx, UnitOfWork } from '../domain/ports';
import { ReleaseTooOldError } from '../domain/features';
import { NodesRepo } from './nodes-repo';
import type { Dialect } from './migrations';
import type { DB } from './schema';
import { runSql, type RepoContext, type Db } from './context';
import { FerrySqliteDialect } from './sqlite-driver';
import { openSqlite, sqliteFile, sqliteWalFlush, SqliteDb } from './sqlite';
import { GroupFlush } from './group-flush';
import { fromPostgres } from './errors';
import { createPool, heavyReadsGate, migratePostgres, postgresDialect, redactDatabaseUrl } from './postgres';
import { TransfersRepo } from './transfers-repo';
import { TransferExtrasRepo } from './transfer-extras-repo';
import { AuditRepo } from './audit-repo';
import { FrequentRecipientsRepo } from './frequent-recipients-repo';
import { GuestsRepo } from './guests-repo';
import { UsersRepo } from './users-repo';
import { LocalAccountsRepo } from './local-accounts-repo';
import { SessionsRepo } from './sessions-repo';
import { RemoteAppsRepo } from './remote-apps-repo';
import { SignaturesRepo } from './signatures-repo';
import { LoginFailuresRepo } from './login-failures-repo';
import { LoginDevicesRepo } from './login-devices-repo';
import { MailQueueRepo } from './mail-queue-repo';
import { TrackingErrorsRepo } from './tracking-errors-repo';
import { PurgeRepo } from './purge-repo';
import { UsageRepo } from './usage-repo';
import { OverridesRepo } from './overrides-repo';
import { SharingRepo } from './sharing-repo';
import { VirusScanRepo } from './virus-scan-repo';
import { ImportRepo } from './import-repo';

/** The metadata database, whichever it is: repositories, units of work, cross-node locks. */
export interface Database {
  dialect: Dialect;
  /** Where it is, for logs: the SQLite file, or the PostgreSQL URL without its password. */
  where: string;
  kysely: Kysely<DB>;
  /** Repositories outside any transaction (each statement commits on its own). */
  repos: Repositories;
  uow: UnitOfWork;
  locks: Locks;
  /** The running nodes and their feature level (docs/deploying.md, "Upgrading a cluster"). */
  nodes: NodeRegistry;
  /** Pages of Transfers waiting for a turn on the database (PostgreSQL's heavy reads; always 0 on SQLite). */
  heavyReadsWaiting(): number;
  /** Raw SQL with `?` placeholders on either database (tests, `ferry db copy`, readiness). */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
  /** SQLite only: the better-sqlite3 handle (online backups). */
  sqlite?: SqliteDb;
}

export interface DatabaseOptions {
  dataDir: string;
  /** null: SQLite in dataDir; else a postgres:// URL. */
  url: string | null;
  auditEnabled?: () => boolean;
}

export function repositories(db: Db, ctx: RepoContext): Repositories {
  return {
    transfers: new TransfersRepo(db, ctx),
    transferExtras: new TransferExtrasRepo(db, ctx),
    audit: new AuditRepo(db, ctx),
    frequentRecipients: new FrequentRecipientsRepo(db, ctx),
    guests: new GuestsRepo(db, ctx),
    users: new UsersRepo(db, ctx),
    localAccounts: new LocalAccountsRepo(db),
    sessions: new SessionsRepo(db, ctx),
    remoteApps: new RemoteAppsRepo(db, ctx),
    signatures: new SignaturesRepo(db, ctx),
    loginFailures: new LoginFailuresRepo(db, ctx),
    loginDevices: new LoginDevicesRepo(db, ctx),
    mailQueue: new MailQueueRepo(db, ctx),
    trackingErrors: new TrackingErrorsRepo(db, ctx),
    purge: new PurgeRepo(db),
    overrides: new OverridesRepo(db),
    usage: new UsageRepo(db, ctx),
    sharing: new SharingRepo(db, ctx),
    virusScans: new VirusScanRepo(db, ctx),
    imports: new ImportRepo(db, ctx),
  };
}

/** PostgreSQL's answers that mean "run the transaction again": serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
const TX_ATTEMPTS = 3;

/**
 * Units of work on Kysely transactions: SQLite's begins with BEGIN IMMEDIATE (see sqlite-driver.ts) and holds
 * the one connection; PostgreSQL's holds one pooled connection. A PostgreSQL deadlock between two units of work
 * (possible with row locks) rolls one back; it is run again, at most TX_ATTEMPTS times.
 */
class KyselyUnitOfWork implements UnitOfWork {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly ctx: RepoContext,
    /** SQLite: waits until the commit is on the disk (see sqliteWalFlush); PostgreSQL's COMMIT already has. */
    private readonly durable: (() => Promise<void>) | null = null,
  ) {}

  async run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const { result, hooks } = await this.transaction(fn);
    // Outside the transaction: the connection serves others while the disk works. What a unit of work changed
    // is acknowledged, and its hooks (mail, wake-ups) run, only once it survives a power cut.
    if (this.durable) await this.durable();
    for (const h of hooks) h();
    return result;
  }

  /** The transaction, run again after a deadlock, with the after-commit hooks of the attempt that committed. */
  private async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<{ result: T; hooks: (() => void)[] }> {
    for (let attempt = 1; ; attempt++) {
      const hooks: (() => void)[] = [];
      try {
        const result = await this.db
          .transaction()
          .execute((trx) => fn({ ...repositories(trx, this.ctx), afterCommit: (h) => void hooks.push(h) }));
        return { result, hooks };
      } catch (e) {
        if (attempt >= TX_ATTEMPTS || !RETRYABLE.has((e as { code?: string })?.code ?? '')) throw e;
      }
    }
  }
}

/** Who holds a lock: this process on this host, with a random part so a reused pid is not taken for it. */
const HOLDER = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
/** A lock row not renewed for this long (its holder crashed) may be taken over. */
const LEASE_S = 120;

/** SQLite: a row in `locks` with a lease renewed while held, so a crashed holder's lock lapses. */
function leaseLocks(db: Kysely<DB>): Locks {
  return {
    async tryLock(name): Promise<(() => Promise<void>) | null> {
      const now = () => Math.floor(Date.now() / 1000);
      const rows = await db
        .insertInto('locks')
        .values({ name, holder: HOLDER, until: now() + LEASE_S })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet({ holder: HOLDER, until: now() + LEASE_S })
            .where('locks.until', '<', now()),
        )
        .returning('holder')
        .execute();
      if (rows.length === 0) {
        // Held: by a live process, or by one that died (SIGKILL, power cut) on this host, whose lock is taken over
        // at once rather than after its lease, as the lock file this replaced did.
        const held = await db.selectFrom('locks').select('holder').where('name', '=', name).executeTakeFirst();
        if (!held || !heldByDeadProcessHere(held.holder)) return null;
        await db.deleteFrom('locks').where('name', '=', name).where('holder', '=', held.holder).execute();
        return this.tryLock(name);
      }
      const renew = setInterval(
        () => {
          void db
            .updateTable('locks')
            .set({ until: now() + LEASE_S })
            .where('name', '=', name)
            .where('holder', '=', HOLDER)
            .execute()
            .catch(() => {});
        },
        (LEASE_S / 4) * 1000,
      );
      renew.unref();
      return async () => {
        clearInterval(renew);
        await db.deleteFrom('locks').where('name', '=', name).where('holder', '=', HOLDER).execute();
      };
    },
  };
}

/** True when `holder` (host:pid:random) names a process of this host that no longer runs. */
function heldByDeadProcessHere(holder: string): boolean {
  const [host, pidText] = holder.split(':');
  const pid = Number(pidText);
  if (host !== os.hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** PostgreSQL: a session-level advisory lock on a connection held for as long as the lock. */
function advisoryLocks(pool: pg.Pool): Locks {
  return {
    async tryLock(name) {
      const client = await pool.connect().catch((e) => Promise.reject(fromPostgres(e)));
      try {
        const r = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1)) AS ok`, [
          `ferry:${name}`,
        ]);
        if (!r.rows[0]?.ok) {
          client.release();
          return null;
        }
      } catch (e) {
        client.release(e as Error);
        throw fromPostgres(e);
      }
      return async () => {
        try {
          await client.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`ferry:${name}`]);
          client.release();
        } catch (e) {
          client.release(e as Error); // the session ends, and its lock with it
        }
      };
    },
  };
}

/** Opens the metadata database the config names: SQLite under data_dir, or PostgreSQL at database_url. */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const ctx: RepoContext = {
    dialect: opts.url ? 'postgres' : 'sqlite',
    auditEnabled: opts.auditEnabled ?? (() => true),
    seenUsers: new Map(),
    owners: new Map(),
    langs: new Map(),
    signatureSweep: { last: -Infinity },
  };
  if (!opts.url) {
    const sqlite = openSqlite(opts.dataDir);
    const dialect = new FerrySqliteDialect(sqlite);
    ctx.readNow = (text, params) => dialect.readNow(text, params);
    const kysely = new Kysely<DB>({ dialect });
    const wal = sqliteWalFlush(opts.dataDir);
    const commits = new GroupFlush(() => wal.flush());
    return {
      dialect: 'sqlite',
      where: sqliteFile(opts.dataDir),
      kysely,
      repos: repositories(kysely, ctx),
      uow: new KyselyUnitOfWork(kysely, ctx, () => commits.after()),
      locks: leaseLocks(kysely),
      nodes: new NodesRepo(kysely, ctx),
      heavyReadsWaiting: () => 0,
      query: <T>(text: string, params: unknown[] = []) => runSql<T>(kysely, ctx, text, params),
      close: async () => {
        await kysely.destroy();
        await wal.close();
      },
      sqlite,
    };
  }
  // File data still lives under data_dir (src/storage): readable by ferry's user only, as with SQLite.
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const pool = createPool(opts.url);
  const heavyReads = heavyReadsGate();
  ctx.heavyReads = heavyReads;
  try {
    await migratePostgres(pool);
  } catch (e) {
    await pool.end().catch(() => {});
    if (e instanceof ReleaseTooOldError) throw e;
    throw new Error(`cannot open the database at ${redactDatabaseUrl(opts.url)}: ${(e as Error).message}`);
  }
  const kysely = new Kysely<DB>({ dialect: postgresDialect(pool) });
  return {
    dialect: 'postgres',
    where: redactDatabaseUrl(opts.url),
    kysely,
    repos: repositories(kysely, ctx),
    uow: new KyselyUnitOfWork(kysely, ctx),
    locks: advisoryLocks(pool),
    nodes: new NodesRepo(kysely, ctx),
    heavyReadsWaiting: () => heavyReads.waiting,
    query: <T>(text: string, params: unknown[] = []) => runSql<T>(kysely, ctx, text, params),
    close: () => kysely.destroy(),
  };
}
